//go:build !mutant_exec_without_container_env

package mutant

// ExecWithoutContainerEnv, when true (build tag mutant_exec_without_container_env), makes the runtime break a requirement: an exec probe, hook or notifier action runs with only a default PATH and the variables the runtime adds for it, not the container's environment (breaks HOOK-003).
const ExecWithoutContainerEnv = false
