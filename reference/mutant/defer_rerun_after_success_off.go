//go:build !mutant_defer_rerun_after_success

package mutant

// DeferRerunAfterSuccess, when true (build tag mutant_defer_rerun_after_success), makes the runtime break a requirement: a defer under restartPolicy OnFailure whose first attempt succeeded is started once more, as if its success were a failure (breaks DEFER-004).
const DeferRerunAfterSuccess = false
