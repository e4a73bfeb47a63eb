//go:build mutant_signal_number_as_pod_exit_code

package mutant

// SignalNumberAsPodExitCode is true in the mutant build mutant_signal_number_as_pod_exit_code: a pod decided by a death by signal N reports status.exitCode N instead of 128+N (breaks EXIT-017).
const SignalNumberAsPodExitCode = true
