//go:build !mutant_reverse_stop_order

package mutant

// ReverseStopOrder, when true (build tag mutant_reverse_stop_order), makes the runtime break a requirement: main containers are stopped before the main containers that depend on them (breaks HB-011).
const ReverseStopOrder = false
