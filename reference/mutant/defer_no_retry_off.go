//go:build !mutant_defer_no_retry

package mutant

// DeferNoRetry, when true (build tag mutant_defer_no_retry), makes the runtime break a requirement: a defer with restartPolicy OnFailure never retries a failed attempt (breaks DEFER-008).
const DeferNoRetry = false
