//go:build mutant_signal_action_dropped

package mutant

// SignalActionDropped is true in the mutant build mutant_signal_action_dropped: a signal notifier's delivery is recorded Succeeded, but the signal is never sent (breaks NTF-006).
const SignalActionDropped = true
