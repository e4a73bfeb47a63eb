//go:build !mutant_defer_signal_succeeds

package mutant

// DeferSignalSucceeds, when true (build tag mutant_defer_signal_succeeds), makes the runtime break a requirement: a defer attempt that dies of a signal the runtime did not send (a crash) ends its run as a success: only a non-zero exit code counts as a failure (breaks DEFER-007).
const DeferSignalSucceeds = false
