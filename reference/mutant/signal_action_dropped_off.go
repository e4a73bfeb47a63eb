//go:build !mutant_signal_action_dropped

package mutant

// SignalActionDropped, when true (build tag mutant_signal_action_dropped), makes the runtime break a requirement: a signal notifier's delivery is recorded Succeeded, but the signal is never sent (breaks NTF-006).
const SignalActionDropped = false
