//go:build !mutant_log_unbounded

package mutant

// LogUnbounded, when true (build tag mutant_log_unbounded), makes the runtime break a requirement: a container instance's log rotates but never drops a segment, so it grows without bound (breaks SUP-013).
const LogUnbounded = false
