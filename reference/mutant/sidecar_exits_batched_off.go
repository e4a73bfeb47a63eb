//go:build !mutant_sidecar_exits_batched

package mutant

// SidecarExitsBatched, when true (build tag mutant_sidecar_exits_batched), makes the runtime break a requirement: the ContainerExited events of the sidecars the stop sequence stops are recorded once the sidecar step ended, in list order, not in the order of their finishedAt (breaks STAT-007).
const SidecarExitsBatched = false
