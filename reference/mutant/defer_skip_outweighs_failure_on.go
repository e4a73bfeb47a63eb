//go:build mutant_defer_skip_outweighs_failure

package mutant

// DeferSkipOutweighsFailure is true in the mutant build mutant_defer_skip_outweighs_failure: DeferCompleted is False with reason DeferSkipped, not DeferFailed, when a run failed and another defer was skipped (breaks DEFER-012).
const DeferSkipOutweighsFailure = true
