//go:build mutant_stop_signal_twice

package mutant

// StopSignalTwice is true in the mutant build mutant_stop_signal_twice: a main container's stop signal is sent twice in the stop sequence (breaks STOP-007).
const StopSignalTwice = true
