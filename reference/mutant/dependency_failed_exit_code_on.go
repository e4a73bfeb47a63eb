//go:build mutant_dependency_failed_exit_code

package mutant

// DependencyFailedExitCode is true in the mutant build mutant_dependency_failed_exit_code: a container failed with DependencyFailed reports exitCode 1 (breaks DEP-012).
const DependencyFailedExitCode = true
