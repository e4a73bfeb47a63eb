//go:build !mutant_init_rerun_on_restart

package mutant

// InitRerunOnRestart, when true (build tag mutant_init_rerun_on_restart), makes the runtime break a requirement: a restart of a main container runs the regular init containers again, as a restart of the whole pod would (breaks INIT-001).
const InitRerunOnRestart = false
