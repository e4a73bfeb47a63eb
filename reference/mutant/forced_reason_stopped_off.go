//go:build !mutant_forced_reason_stopped

package mutant

// ForcedReasonStopped, when true (build tag mutant_forced_reason_stopped), makes the runtime break a requirement: a forced stop of a pod that is not terminating begins its stop sequence with termination reason Stopped instead of Forced (breaks FORCE-006).
const ForcedReasonStopped = false
