//go:build mutant_main_restarted_in_stop

package mutant

// MainRestartedInStop is true in the mutant build mutant_main_restarted_in_stop: a main container waiting for its restart when the stop sequence begins is restarted anyway (breaks MAIN-002).
const MainRestartedInStop = true
