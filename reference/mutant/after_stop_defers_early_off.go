//go:build !mutant_after_stop_defers_early

package mutant

// AfterStopDefersEarly, when true (build tag mutant_after_stop_defers_early), makes the runtime break a requirement: AfterStop defer containers run while the main containers are being stopped instead of after they exited (breaks HB-013).
const AfterStopDefersEarly = false
