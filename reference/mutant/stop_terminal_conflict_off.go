//go:build !mutant_stop_terminal_conflict

package mutant

// StopTerminalConflict, when true (build tag mutant_stop_terminal_conflict), makes the runtime break a requirement: a stop request for a terminal pod fails with Conflict (breaks STOP-013).
const StopTerminalConflict = false
