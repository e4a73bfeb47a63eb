//go:build !mutant_defer_skip_outweighs_failure

package mutant

// DeferSkipOutweighsFailure, when true (build tag mutant_defer_skip_outweighs_failure), makes the runtime break a requirement: DeferCompleted is False with reason DeferSkipped, not DeferFailed, when a run failed and another defer was skipped (breaks DEFER-012).
const DeferSkipOutweighsFailure = false
