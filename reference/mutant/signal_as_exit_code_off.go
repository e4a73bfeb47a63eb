//go:build !mutant_signal_as_exit_code

package mutant

// SignalAsExitCode, when true (build tag mutant_signal_as_exit_code), makes the runtime break a requirement: a death by signal N is reported as exitCode 128+N without a signal (breaks STAT-002, STAT-003).
const SignalAsExitCode = false
