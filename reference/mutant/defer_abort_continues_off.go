//go:build !mutant_defer_abort_continues

package mutant

// DeferAbortContinues, when true (build tag mutant_defer_abort_continues), makes the runtime break a requirement: a failed defer with onFailure: Abort does not skip the later defers: they run as after onFailure: Continue (breaks DEFER-009).
const DeferAbortContinues = false
