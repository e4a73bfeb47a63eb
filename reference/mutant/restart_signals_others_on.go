//go:build mutant_restart_signals_others

package mutant

// RestartSignalsOthers is true in the mutant build mutant_restart_signals_others: a restart of a main container sends the stop signal to the other main containers, as a restart of the whole pod would (breaks RST-007).
const RestartSignalsOthers = true
