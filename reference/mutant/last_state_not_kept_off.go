//go:build !mutant_last_state_not_kept

package mutant

// LastStateNotKept, when true (build tag mutant_last_state_not_kept), makes the runtime break a requirement: a restart does not move the previous instance's termination to lastState.terminated (breaks STAT-008).
const LastStateNotKept = false
