//go:build !mutant_dependency_failed_exit_code

package mutant

// DependencyFailedExitCode, when true (build tag mutant_dependency_failed_exit_code), makes the runtime break a requirement: a container failed with DependencyFailed reports exitCode 1 (breaks DEP-012).
const DependencyFailedExitCode = false
