//go:build !mutant_signal_number_as_pod_exit_code

package mutant

// SignalNumberAsPodExitCode, when true (build tag mutant_signal_number_as_pod_exit_code), makes the runtime break a requirement: a pod decided by a death by signal N reports status.exitCode N instead of 128+N (breaks EXIT-017).
const SignalNumberAsPodExitCode = false
