//go:build !mutant_ready_dependency_as_started

package mutant

// ReadyDependencyAsStarted, when true (build tag mutant_ready_dependency_as_started), makes the runtime break a requirement: a dependency with condition Ready is treated as Started: the dependent starts before the dependency's readiness probe succeeded (breaks HB-004).
const ReadyDependencyAsStarted = false
