//go:build !mutant_forced_succeeds

package mutant

// ForcedSucceeds, when true (build tag mutant_forced_succeeds), makes the runtime break a requirement: a pod ended by a forced stop is Succeeded when no exit counts as a failure (breaks EXIT-014).
const ForcedSucceeds = false
