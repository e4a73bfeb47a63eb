//go:build mutant_start_after_stop

package mutant

// StartAfterStop is true in the mutant build mutant_start_after_stop: an instance created when the stop sequence begins is started all the same, and a stop does not wait for a start under way (breaks MAIN-002, MAIN-004).
const StartAfterStop = true
