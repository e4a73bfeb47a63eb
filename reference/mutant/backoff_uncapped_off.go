//go:build !mutant_backoff_uncapped

package mutant

// BackoffUncapped, when true (build tag mutant_backoff_uncapped), makes the runtime break a requirement: the restart back-off grows by its factor without the cap at maxSeconds (breaks RST-008).
const BackoffUncapped = false
