//go:build !mutant_finished_at_stop_begin

package mutant

// FinishedAtStopBegin, when true (build tag mutant_finished_at_stop_begin), makes the runtime break a requirement: status.finishedAt records when the stop sequence began, not when the pod became terminal (breaks EXIT-011).
const FinishedAtStopBegin = false
