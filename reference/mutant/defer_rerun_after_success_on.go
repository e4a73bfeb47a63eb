//go:build mutant_defer_rerun_after_success

package mutant

// DeferRerunAfterSuccess is true in the mutant build mutant_defer_rerun_after_success: a defer under restartPolicy OnFailure whose first attempt succeeded is started once more, as if its success were a failure (breaks DEFER-004).
const DeferRerunAfterSuccess = true
