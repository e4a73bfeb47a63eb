//go:build mutant_update_signals_during_stop

package mutant

// UpdateSignalsDuringStop is true in the mutant build mutant_update_signals_during_stop: an update's replacement keeps signalling its instance after a stop sequence began, SIGKILL at the end of the update's grace period included (breaks STOP-003, STOP-007).
const UpdateSignalsDuringStop = true
