//go:build !mutant_stopped_reason_completed

package mutant

// StoppedReasonCompleted, when true (build tag mutant_stopped_reason_completed), makes the runtime break a requirement: a container the stop sequence stopped that exits 0 is recorded with reason Completed instead of Stopped (breaks STAT-006).
const StoppedReasonCompleted = false
