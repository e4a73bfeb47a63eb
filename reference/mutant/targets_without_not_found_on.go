//go:build mutant_targets_without_not_found

package mutant

// TargetsWithoutNotFound is true in the mutant build mutant_targets_without_not_found: status.targets counts only the pods that exist, not the PodNotFound records of names in spec.pods (breaks NOTIF-016).
const TargetsWithoutNotFound = true
