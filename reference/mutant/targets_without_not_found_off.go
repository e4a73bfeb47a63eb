//go:build !mutant_targets_without_not_found

package mutant

// TargetsWithoutNotFound, when true (build tag mutant_targets_without_not_found), makes the runtime break a requirement: status.targets counts only the pods that exist, not the PodNotFound records of names in spec.pods (breaks NOTIF-016).
const TargetsWithoutNotFound = false
