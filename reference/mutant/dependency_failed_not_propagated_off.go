//go:build !mutant_dependency_failed_not_propagated

package mutant

// DependencyFailedNotPropagated, when true (build tag mutant_dependency_failed_not_propagated), makes the runtime break a requirement: a container waiting for a dependency that failed with DependencyFailed keeps waiting instead of failing in turn (breaks DEP-013).
const DependencyFailedNotPropagated = false
