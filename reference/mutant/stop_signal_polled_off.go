//go:build !mutant_stop_signal_polled

package mutant

// StopSignalPolled, when true (build tag mutant_stop_signal_polled), makes the runtime break a requirement: in the stop sequence a main container gets its stop signal on the next poll, 2.5 s after its preStop hook ended and its dependents exited (breaks TIME-003).
const StopSignalPolled = false
