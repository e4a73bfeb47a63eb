//go:build mutant_lost_defer_attempt_failed

package mutant

// LostDeferAttemptFailed is true in the mutant build mutant_lost_defer_attempt_failed: a defer attempt that ended while no supervisor watched it ends its run as a failure instead of being started again (breaks DEFER-015).
const LostDeferAttemptFailed = true
