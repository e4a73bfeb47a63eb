//go:build !mutant_never_started_main_waiting

package mutant

// NeverStartedMainWaiting, when true (build tag mutant_never_started_main_waiting), makes the runtime break a requirement: a main container that never started when the stop sequence began stays waiting instead of being recorded as skipped (breaks MAIN-003).
const NeverStartedMainWaiting = false
