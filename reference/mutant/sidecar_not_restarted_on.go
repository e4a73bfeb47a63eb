//go:build mutant_sidecar_not_restarted

package mutant

// SidecarNotRestarted is true in the mutant build mutant_sidecar_not_restarted: a sidecar follows the restart policy instead of always being restarted (breaks SIDE-001).
const SidecarNotRestarted = true
