//go:build mutant_resumed_update_counts_old_instance

package mutant

// ResumedUpdateCountsOldInstance is true in the mutant build mutant_resumed_update_counts_old_instance: after a supervisor loss, a resumed update marks its pending replacements with a version older than the adopted instance's, so the old instance counts as the new one (breaks UPD-006).
const ResumedUpdateCountsOldInstance = true
