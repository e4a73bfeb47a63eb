//go:build !mutant_sidecars_not_awaited

package mutant

// SidecarsNotAwaited, when true (build tag mutant_sidecars_not_awaited), makes the runtime break a requirement: main containers start once the regular init containers exited 0, without waiting for the sidecars to be Started (breaks HB-003).
const SidecarsNotAwaited = false
