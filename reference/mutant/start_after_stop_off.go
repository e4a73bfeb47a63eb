//go:build !mutant_start_after_stop

package mutant

// StartAfterStop, when true (build tag mutant_start_after_stop), makes the runtime break a requirement: an instance created when the stop sequence begins is started all the same, and a stop does not wait for a start under way (breaks MAIN-002, MAIN-004).
const StartAfterStop = false
