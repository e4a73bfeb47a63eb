//go:build mutant_initialized_ignores_sidecars

package mutant

// InitializedIgnoresSidecars is true in the mutant build mutant_initialized_ignores_sidecars: the condition Initialized becomes True once the regular init containers exited 0, before the sidecars are Started (breaks EXIT-010).
const InitializedIgnoresSidecars = true
