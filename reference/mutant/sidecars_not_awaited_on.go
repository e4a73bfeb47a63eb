//go:build mutant_sidecars_not_awaited

package mutant

// SidecarsNotAwaited is true in the mutant build mutant_sidecars_not_awaited: main containers start once the regular init containers exited 0, without waiting for the sidecars to be Started (breaks HB-003).
const SidecarsNotAwaited = true
