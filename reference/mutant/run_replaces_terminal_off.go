//go:build !mutant_run_replaces_terminal

package mutant

// RunReplacesTerminal, when true (build tag mutant_run_replaces_terminal), makes the runtime break a requirement: creating a pod with the name of a terminal pod removes the terminal pod and creates the new one instead of refusing with Conflict (breaks ID-007).
const RunReplacesTerminal = false
