//go:build mutant_sidecar_exits_batched

package mutant

// SidecarExitsBatched is true in the mutant build mutant_sidecar_exits_batched: the ContainerExited events of the sidecars the stop sequence stops are recorded once the sidecar step ended, in list order, not in the order of their finishedAt (breaks STAT-007).
const SidecarExitsBatched = true
