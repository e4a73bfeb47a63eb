//go:build mutant_sidecars_forward

package mutant

// SidecarsForward is true in the mutant build mutant_sidecars_forward: sidecars are stopped in list order instead of reverse order (breaks HB-015).
const SidecarsForward = true
