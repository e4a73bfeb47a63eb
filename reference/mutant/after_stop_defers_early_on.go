//go:build mutant_after_stop_defers_early

package mutant

// AfterStopDefersEarly is true in the mutant build mutant_after_stop_defers_early: AfterStop defer containers run while the main containers are being stopped instead of after they exited (breaks HB-013).
const AfterStopDefersEarly = true
