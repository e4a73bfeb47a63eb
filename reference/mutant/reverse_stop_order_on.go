//go:build mutant_reverse_stop_order

package mutant

// ReverseStopOrder is true in the mutant build mutant_reverse_stop_order: main containers are stopped before the main containers that depend on them (breaks HB-011).
const ReverseStopOrder = true
