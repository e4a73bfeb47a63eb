//go:build mutant_backoff_uncapped

package mutant

// BackoffUncapped is true in the mutant build mutant_backoff_uncapped: the restart back-off grows by its factor without the cap at maxSeconds (breaks RST-008).
const BackoffUncapped = true
