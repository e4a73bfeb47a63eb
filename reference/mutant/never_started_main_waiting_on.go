//go:build mutant_never_started_main_waiting

package mutant

// NeverStartedMainWaiting is true in the mutant build mutant_never_started_main_waiting: a main container that never started when the stop sequence began stays waiting instead of being recorded as skipped (breaks MAIN-003).
const NeverStartedMainWaiting = true
