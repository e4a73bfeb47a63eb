//go:build mutant_forced_reason_stopped

package mutant

// ForcedReasonStopped is true in the mutant build mutant_forced_reason_stopped: a forced stop of a pod that is not terminating begins its stop sequence with termination reason Stopped instead of Forced (breaks FORCE-006).
const ForcedReasonStopped = true
