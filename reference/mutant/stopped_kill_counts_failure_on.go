//go:build mutant_stopped_kill_counts_failure

package mutant

// StoppedKillCountsFailure is true in the mutant build mutant_stopped_kill_counts_failure: an instance the runtime stopped that dies by a signal (SIGKILL at the budget end) counts as a failure (breaks EXIT-013).
const StoppedKillCountsFailure = true
