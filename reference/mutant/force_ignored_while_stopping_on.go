//go:build mutant_force_ignored_while_stopping

package mutant

// ForceIgnoredWhileStopping is true in the mutant build mutant_force_ignored_while_stopping: a forced stop that arrives during a graceful stop sequence is recorded but ignored: the graceful sequence goes on (breaks FORCE-005).
const ForceIgnoredWhileStopping = true
