//go:build mutant_reason_recomputed_at_finish

package mutant

// ReasonRecomputedAtFinish is true in the mutant build mutant_reason_recomputed_at_finish: status.reason is recomputed from the exits when the pod becomes terminal: a stopped pod whose main containers all exited 0 ends Completed, not Stopped (breaks EXIT-020).
const ReasonRecomputedAtFinish = true
