//go:build mutant_exit_code_with_signal

package mutant

// ExitCodeWithSignal is true in the mutant build mutant_exit_code_with_signal: a death by signal N is reported with the signal and also exitCode 128+N (breaks STAT-001).
const ExitCodeWithSignal = true
