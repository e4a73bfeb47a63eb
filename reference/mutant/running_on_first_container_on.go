//go:build mutant_running_on_first_container

package mutant

// RunningOnFirstContainer is true in the mutant build mutant_running_on_first_container: a pod is reported Running as soon as any container starts, an init container or sidecar included (breaks EXIT-009).
const RunningOnFirstContainer = true
