//go:build !mutant_sidecar_not_restarted

package mutant

// SidecarNotRestarted, when true (build tag mutant_sidecar_not_restarted), makes the runtime break a requirement: a sidecar is not restarted after it exits (breaks SIDE-001).
const SidecarNotRestarted = false
