//go:build !mutant_stop_signal_awaits_every_prestop

package mutant

// StopSignalAwaitsEveryPreStop, when true (build tag mutant_stop_signal_awaits_every_prestop), makes the runtime break a requirement: no main container gets its stop signal before the preStop hooks of every main container have ended, also one that depends on nothing whose hook is slow (breaks HB-020).
const StopSignalAwaitsEveryPreStop = false
