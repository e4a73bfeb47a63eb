//go:build mutant_backoff_never_reset

package mutant

// BackoffNeverReset is true in the mutant build mutant_backoff_never_reset: the back-off is never reset, however long an instance ran (breaks RST-009).
const BackoffNeverReset = true
