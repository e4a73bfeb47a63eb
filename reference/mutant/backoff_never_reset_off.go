//go:build !mutant_backoff_never_reset

package mutant

// BackoffNeverReset, when true (build tag mutant_backoff_never_reset), makes the runtime break a requirement: the back-off is never reset, however long an instance ran (breaks RST-009).
const BackoffNeverReset = false
