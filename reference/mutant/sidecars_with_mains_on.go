//go:build mutant_sidecars_with_mains

package mutant

// SidecarsWithMains is true in the mutant build mutant_sidecars_with_mains: the sidecars are stopped together with the main containers instead of after them (breaks HB-014).
const SidecarsWithMains = true
