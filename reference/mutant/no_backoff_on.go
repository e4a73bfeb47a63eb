//go:build mutant_no_backoff

package mutant

// NoBackoff is true in the mutant build mutant_no_backoff: restarts start at once, without the back-off delay (breaks RST-008).
const NoBackoff = true
