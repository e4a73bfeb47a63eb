//go:build !mutant_restart_waits_for_dependencies

package mutant

// RestartWaitsForDependencies, when true (build tag mutant_restart_waits_for_dependencies), makes the runtime break a requirement: a restart of a dependent waits until its dependencies' conditions hold again (breaks DEP-011).
const RestartWaitsForDependencies = false
