//go:build !mutant_sidecar_running_not_started

package mutant

// SidecarRunningNotStarted, when true (build tag mutant_sidecar_running_not_started), makes the runtime break a requirement: the init entry after a sidecar starts once the sidecar runs, before it is Started (its startup probe passed) (breaks HB-002).
const SidecarRunningNotStarted = false
