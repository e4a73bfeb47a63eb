//go:build mutant_selector_any_label

package mutant

// SelectorAnyLabel is true in the mutant build mutant_selector_any_label: a selector's matchLabels selects a pod that has any one of its labels, not all of them (breaks NOTIF-003).
const SelectorAnyLabel = true
