//go:build !mutant_running_on_first_container

package mutant

// RunningOnFirstContainer, when true (build tag mutant_running_on_first_container), makes the runtime break a requirement: a pod is reported Running as soon as any container starts, an init container or sidecar included (breaks EXIT-009).
const RunningOnFirstContainer = false
