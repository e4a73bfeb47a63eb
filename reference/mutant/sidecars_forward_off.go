//go:build !mutant_sidecars_forward

package mutant

// SidecarsForward, when true (build tag mutant_sidecars_forward), makes the runtime break a requirement: sidecars are stopped in list order instead of reverse order (breaks HB-015).
const SidecarsForward = false
