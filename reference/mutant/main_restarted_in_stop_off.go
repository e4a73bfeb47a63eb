//go:build !mutant_main_restarted_in_stop

package mutant

// MainRestartedInStop, when true (build tag mutant_main_restarted_in_stop), makes the runtime break a requirement: a main container waiting for its restart when the stop sequence begins is restarted anyway (breaks MAIN-002).
const MainRestartedInStop = false
