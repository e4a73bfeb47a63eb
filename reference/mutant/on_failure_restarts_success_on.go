//go:build mutant_on_failure_restarts_success

package mutant

// OnFailureRestartsSuccess is true in the mutant build mutant_on_failure_restarts_success: restartPolicy OnFailure restarts a container after it exited 0 too (breaks RST-003).
const OnFailureRestartsSuccess = true
