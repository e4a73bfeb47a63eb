//go:build mutant_removed_target_not_found

package mutant

// RemovedTargetNotFound is true in the mutant build mutant_removed_target_not_found: a target pod removed before its turn is Skipped with reason PodNotFound instead of PodTerminated (breaks NOTIF-009).
const RemovedTargetNotFound = true
