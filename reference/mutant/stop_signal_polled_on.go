//go:build mutant_stop_signal_polled

package mutant

// StopSignalPolled is true in the mutant build mutant_stop_signal_polled: in the stop sequence a main container gets its stop signal on the next poll, 2.5 s after its preStop hook ended and its dependents exited (breaks TIME-003).
const StopSignalPolled = true
