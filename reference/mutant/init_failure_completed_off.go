//go:build !mutant_init_failure_completed

package mutant

// InitFailureCompleted, when true (build tag mutant_init_failure_completed), makes the runtime break a requirement: the stop sequence that a regular init container's terminal failure begins has termination reason Completed (breaks INIT-003).
const InitFailureCompleted = false
