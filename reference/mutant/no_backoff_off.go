//go:build !mutant_no_backoff

package mutant

// NoBackoff, when true (build tag mutant_no_backoff), makes the runtime break a requirement: restarts start at once, without the back-off delay (breaks RST-008).
const NoBackoff = false
