//go:build mutant_ready_after_exit

package mutant

// ReadyAfterExit is true in the mutant build mutant_ready_after_exit: a container without a readinessProbe stays ready after its instance exited (breaks DEP-009).
const ReadyAfterExit = true
