//go:build mutant_dependency_failed_not_propagated

package mutant

// DependencyFailedNotPropagated is true in the mutant build mutant_dependency_failed_not_propagated: a container waiting for a dependency that failed with DependencyFailed keeps waiting instead of failing in turn (breaks DEP-013).
const DependencyFailedNotPropagated = true
