//go:build !mutant_previous_log_deleted

package mutant

// PreviousLogDeleted, when true (build tag mutant_previous_log_deleted), makes the runtime break a requirement: the log of a container's instance is deleted when the container's next instance is created, so only the current instance's output is kept (breaks GC-001).
const PreviousLogDeleted = false
