//go:build !mutant_sidecars_with_mains

package mutant

// SidecarsWithMains, when true (build tag mutant_sidecars_with_mains), makes the runtime break a requirement: the sidecars are stopped together with the main containers instead of after them (breaks HB-014).
const SidecarsWithMains = false
