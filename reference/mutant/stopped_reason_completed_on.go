//go:build mutant_stopped_reason_completed

package mutant

// StoppedReasonCompleted is true in the mutant build mutant_stopped_reason_completed: a container the stop sequence stopped that exits 0 is recorded with reason Completed instead of Stopped (breaks STAT-006).
const StoppedReasonCompleted = true
