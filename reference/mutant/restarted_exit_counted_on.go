//go:build mutant_restarted_exit_counted

package mutant

// RestartedExitCounted is true in the mutant build mutant_restarted_exit_counted: an exit that will be restarted is counted for the exit policy (breaks EXIT-002).
const RestartedExitCounted = true
