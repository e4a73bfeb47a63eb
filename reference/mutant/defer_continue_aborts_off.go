//go:build !mutant_defer_continue_aborts

package mutant

// DeferContinueAborts, when true (build tag mutant_defer_continue_aborts), makes the runtime break a requirement: a failed defer with onFailure: Continue skips the later defers with reason Aborted, as onFailure: Abort would (breaks DEFER-010).
const DeferContinueAborts = false
