//go:build !mutant_lost_defer_attempt_failed

package mutant

// LostDeferAttemptFailed, when true (build tag mutant_lost_defer_attempt_failed), makes the runtime break a requirement: a defer attempt that ended while no supervisor watched it ends its run as a failure instead of being started again (breaks DEFER-015).
const LostDeferAttemptFailed = false
