//go:build !mutant_stopped_kill_counts_failure

package mutant

// StoppedKillCountsFailure, when true (build tag mutant_stopped_kill_counts_failure), makes the runtime break a requirement: an instance the runtime stopped that dies by a signal (SIGKILL at the budget end) counts as a failure (breaks EXIT-013).
const StoppedKillCountsFailure = false
