//go:build !mutant_signal_not_failure

package mutant

// SignalNotFailure, when true (build tag mutant_signal_not_failure), makes the runtime break a requirement: a death by signal of an instance the runtime did not stop does not count as a failure (breaks EXIT-012).
const SignalNotFailure = false
