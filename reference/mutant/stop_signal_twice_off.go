//go:build !mutant_stop_signal_twice

package mutant

// StopSignalTwice, when true (build tag mutant_stop_signal_twice), makes the runtime break a requirement: a main container's stop signal is sent twice in the stop sequence (breaks STOP-007).
const StopSignalTwice = false
