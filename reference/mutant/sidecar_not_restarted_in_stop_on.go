//go:build mutant_sidecar_not_restarted_in_stop

package mutant

// SidecarNotRestartedInStop is true in the mutant build mutant_sidecar_not_restarted_in_stop: a sidecar that exits after the stop sequence began is not restarted, although its own step has not begun (breaks SIDE-001).
const SidecarNotRestartedInStop = true
