//go:build mutant_ready_dependency_as_started

package mutant

// ReadyDependencyAsStarted is true in the mutant build mutant_ready_dependency_as_started: a dependency with condition Ready is treated as Started: the dependent starts before the dependency's readiness probe succeeded (breaks HB-004).
const ReadyDependencyAsStarted = true
