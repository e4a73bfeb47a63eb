//go:build mutant_signal_not_failure

package mutant

// SignalNotFailure is true in the mutant build mutant_signal_not_failure: a death by signal of an instance the runtime did not stop does not count as a failure (breaks EXIT-012).
const SignalNotFailure = true
