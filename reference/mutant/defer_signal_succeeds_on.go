//go:build mutant_defer_signal_succeeds

package mutant

// DeferSignalSucceeds is true in the mutant build mutant_defer_signal_succeeds: a defer attempt that dies of a signal the runtime did not send (a crash) ends its run as a success: only a non-zero exit code counts as a failure (breaks DEFER-007).
const DeferSignalSucceeds = true
