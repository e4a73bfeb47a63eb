//go:build mutant_sidecar_not_restarted

package mutant

// SidecarNotRestarted is true in the mutant build mutant_sidecar_not_restarted: a sidecar is not restarted after it exits (breaks SIDE-001).
const SidecarNotRestarted = true
