//go:build mutant_run_replaces_terminal

package mutant

// RunReplacesTerminal is true in the mutant build mutant_run_replaces_terminal: creating a pod with the name of a terminal pod removes the terminal pod and creates the new one instead of refusing with Conflict (breaks ID-007).
const RunReplacesTerminal = true
