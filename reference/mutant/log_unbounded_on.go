//go:build mutant_log_unbounded

package mutant

// LogUnbounded is true in the mutant build mutant_log_unbounded: a container instance's log rotates but never drops a segment, so it grows without bound (breaks SUP-013).
const LogUnbounded = true
