//go:build mutant_lost_exit_as_zero

package mutant

// LostExitAsZero is true in the mutant build mutant_lost_exit_as_zero: an instance that ended while no supervisor watched it is recorded as exited 0 (Completed) instead of ExitStatusLost (breaks SUP-005).
const LostExitAsZero = true
