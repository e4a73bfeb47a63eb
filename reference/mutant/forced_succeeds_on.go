//go:build mutant_forced_succeeds

package mutant

// ForcedSucceeds is true in the mutant build mutant_forced_succeeds: a pod ended by a forced stop is Succeeded when no exit counts as a failure (breaks EXIT-014).
const ForcedSucceeds = true
