//go:build !mutant_on_failure_restarts_success

package mutant

// OnFailureRestartsSuccess, when true (build tag mutant_on_failure_restarts_success), makes the runtime break a requirement: restartPolicy OnFailure restarts a container after it exited 0 too (breaks RST-003).
const OnFailureRestartsSuccess = false
