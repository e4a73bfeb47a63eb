//go:build mutant_finished_at_stop_begin

package mutant

// FinishedAtStopBegin is true in the mutant build mutant_finished_at_stop_begin: status.finishedAt records when the stop sequence began, not when the pod became terminal (breaks EXIT-011).
const FinishedAtStopBegin = true
