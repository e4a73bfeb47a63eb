//go:build !mutant_update_signals_during_stop

package mutant

// UpdateSignalsDuringStop, when true (build tag mutant_update_signals_during_stop), makes the runtime break a requirement: an update's replacement keeps signalling its instance after a stop sequence began, SIGKILL at the end of the update's grace period included (breaks STOP-003, STOP-007).
const UpdateSignalsDuringStop = false
