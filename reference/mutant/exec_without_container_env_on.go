//go:build mutant_exec_without_container_env

package mutant

// ExecWithoutContainerEnv is true in the mutant build mutant_exec_without_container_env: an exec probe, hook or notifier action runs with only a default PATH and the variables the runtime adds for it, not the container's environment (breaks HOOK-003).
const ExecWithoutContainerEnv = true
