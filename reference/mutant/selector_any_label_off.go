//go:build !mutant_selector_any_label

package mutant

// SelectorAnyLabel, when true (build tag mutant_selector_any_label), makes the runtime break a requirement: a selector's matchLabels selects a pod that has any one of its labels, not all of them (breaks NOTIF-003).
const SelectorAnyLabel = false
