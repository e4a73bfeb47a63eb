//go:build mutant_defer_no_retry

package mutant

// DeferNoRetry is true in the mutant build mutant_defer_no_retry: a defer with restartPolicy OnFailure never retries a failed attempt (breaks DEFER-008).
const DeferNoRetry = true
