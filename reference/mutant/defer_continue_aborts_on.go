//go:build mutant_defer_continue_aborts

package mutant

// DeferContinueAborts is true in the mutant build mutant_defer_continue_aborts: a failed defer with onFailure: Continue skips the later defers with reason Aborted, as onFailure: Abort would (breaks DEFER-010).
const DeferContinueAborts = true
