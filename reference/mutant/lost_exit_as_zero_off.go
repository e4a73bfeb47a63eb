//go:build !mutant_lost_exit_as_zero

package mutant

// LostExitAsZero, when true (build tag mutant_lost_exit_as_zero), makes the runtime break a requirement: an instance that ended while no supervisor watched it is recorded as exited 0 (Completed) instead of ExitStatusLost (breaks SUP-005).
const LostExitAsZero = false
