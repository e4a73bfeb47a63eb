//go:build mutant_last_state_not_kept

package mutant

// LastStateNotKept is true in the mutant build mutant_last_state_not_kept: a restart does not move the previous instance's termination to lastState.terminated (breaks STAT-008).
const LastStateNotKept = true
