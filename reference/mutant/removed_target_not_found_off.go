//go:build !mutant_removed_target_not_found

package mutant

// RemovedTargetNotFound, when true (build tag mutant_removed_target_not_found), makes the runtime break a requirement: a target pod removed before its turn is Skipped with reason PodNotFound instead of PodTerminated (breaks NOTIF-009).
const RemovedTargetNotFound = false
