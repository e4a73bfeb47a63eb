//go:build !mutant_completed_from_first_exit

package mutant

// CompletedFromFirstExit, when true (build tag mutant_completed_from_first_exit), makes the runtime break a requirement: condition Completed is decided by the dependency's first exit, so a dependency that fails, is restarted (OnFailure) and then exits 0 never counts as Completed, and its dependents fail with DependencyFailed at its first exit (breaks DEP-010).
const CompletedFromFirstExit = false
