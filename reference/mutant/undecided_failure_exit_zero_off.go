//go:build !mutant_undecided_failure_exit_zero

package mutant

// UndecidedFailureExitZero, when true (build tag mutant_undecided_failure_exit_zero), makes the runtime break a requirement: a Failed pod without a deciding container reports status.exitCode 0 instead of 1 (breaks EXIT-018).
const UndecidedFailureExitZero = false
