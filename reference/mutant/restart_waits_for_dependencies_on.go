//go:build mutant_restart_waits_for_dependencies

package mutant

// RestartWaitsForDependencies is true in the mutant build mutant_restart_waits_for_dependencies: a restart of a dependent waits until its dependencies' conditions hold again (breaks DEP-011).
const RestartWaitsForDependencies = true
