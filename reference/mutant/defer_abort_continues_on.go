//go:build mutant_defer_abort_continues

package mutant

// DeferAbortContinues is true in the mutant build mutant_defer_abort_continues: a failed defer with onFailure: Abort does not skip the later defers: they run as after onFailure: Continue (breaks DEFER-009).
const DeferAbortContinues = true
