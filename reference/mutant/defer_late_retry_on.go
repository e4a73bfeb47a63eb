//go:build mutant_defer_late_retry

package mutant

// DeferLateRetry is true in the mutant build mutant_defer_late_retry: under restartPolicy OnFailure a defer retries its first failed attempt although the back-off ends at or after the limit of the run, counting the run's timeoutSeconds anew from the retry (breaks DEFER-017).
const DeferLateRetry = true
