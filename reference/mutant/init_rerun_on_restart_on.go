//go:build mutant_init_rerun_on_restart

package mutant

// InitRerunOnRestart is true in the mutant build mutant_init_rerun_on_restart: a restart of a main container runs the regular init containers again, as a restart of the whole pod would (breaks INIT-001).
const InitRerunOnRestart = true
