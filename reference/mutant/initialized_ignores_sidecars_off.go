//go:build !mutant_initialized_ignores_sidecars

package mutant

// InitializedIgnoresSidecars, when true (build tag mutant_initialized_ignores_sidecars), makes the runtime break a requirement: the condition Initialized becomes True once the regular init containers exited 0, before the sidecars are Started (breaks EXIT-010).
const InitializedIgnoresSidecars = false
