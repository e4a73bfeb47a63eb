//go:build !mutant_restarted_exit_counted

package mutant

// RestartedExitCounted, when true (build tag mutant_restarted_exit_counted), makes the runtime break a requirement: an exit that will be restarted is counted for the exit policy (breaks EXIT-002).
const RestartedExitCounted = false
