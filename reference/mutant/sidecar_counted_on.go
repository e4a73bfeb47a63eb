//go:build mutant_sidecar_counted

package mutant

// SidecarCounted is true in the mutant build mutant_sidecar_counted: a sidecar's terminal exit counts for the pod result (breaks SIDE-002).
const SidecarCounted = true
