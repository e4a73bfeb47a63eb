//go:build !mutant_sidecar_not_restarted

package mutant

// SidecarNotRestarted, when true (build tag mutant_sidecar_not_restarted), makes the runtime break a requirement: a sidecar follows the restart policy instead of always being restarted (breaks SIDE-001).
const SidecarNotRestarted = false
