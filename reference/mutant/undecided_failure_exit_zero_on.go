//go:build mutant_undecided_failure_exit_zero

package mutant

// UndecidedFailureExitZero is true in the mutant build mutant_undecided_failure_exit_zero: a Failed pod without a deciding container reports status.exitCode 0 instead of 1 (breaks EXIT-018).
const UndecidedFailureExitZero = true
