//go:build !mutant_force_ignored_while_stopping

package mutant

// ForceIgnoredWhileStopping, when true (build tag mutant_force_ignored_while_stopping), makes the runtime break a requirement: a forced stop that arrives during a graceful stop sequence is recorded but ignored: the graceful sequence goes on (breaks FORCE-005).
const ForceIgnoredWhileStopping = false
