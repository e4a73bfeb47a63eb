//go:build !mutant_exit_code_with_signal

package mutant

// ExitCodeWithSignal, when true (build tag mutant_exit_code_with_signal), makes the runtime break a requirement: a death by signal N is reported with the signal and also exitCode 128+N (breaks STAT-001).
const ExitCodeWithSignal = false
