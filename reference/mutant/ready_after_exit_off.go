//go:build !mutant_ready_after_exit

package mutant

// ReadyAfterExit, when true (build tag mutant_ready_after_exit), makes the runtime break a requirement: a container without a readinessProbe stays ready after its instance exited (breaks DEP-009).
const ReadyAfterExit = false
