//go:build mutant_sidecar_running_not_started

package mutant

// SidecarRunningNotStarted is true in the mutant build mutant_sidecar_running_not_started: the init entry after a sidecar starts once the sidecar runs, before it is Started (its startup probe passed) (breaks HB-002).
const SidecarRunningNotStarted = true
