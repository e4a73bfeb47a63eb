//go:build mutant_stop_terminal_conflict

package mutant

// StopTerminalConflict is true in the mutant build mutant_stop_terminal_conflict: a stop request for a terminal pod fails with Conflict (breaks STOP-013).
const StopTerminalConflict = true
