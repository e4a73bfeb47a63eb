//go:build mutant_init_failure_completed

package mutant

// InitFailureCompleted is true in the mutant build mutant_init_failure_completed: the stop sequence that a regular init container's terminal failure begins has termination reason Completed (breaks INIT-003).
const InitFailureCompleted = true
