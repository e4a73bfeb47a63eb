//go:build mutant_signal_as_exit_code

package mutant

// SignalAsExitCode is true in the mutant build mutant_signal_as_exit_code: a death by signal N is reported as exitCode 128+N without a signal (breaks STAT-002, STAT-003).
const SignalAsExitCode = true
