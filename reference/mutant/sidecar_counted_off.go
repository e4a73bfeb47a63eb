//go:build !mutant_sidecar_counted

package mutant

// SidecarCounted, when true (build tag mutant_sidecar_counted), makes the runtime break a requirement: a sidecar's terminal exit counts for the pod result (breaks SIDE-002).
const SidecarCounted = false
