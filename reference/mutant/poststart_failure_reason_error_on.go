//go:build mutant_poststart_failure_reason_error

package mutant

// PostStartFailureReasonError is true in the mutant build mutant_poststart_failure_reason_error: an instance killed because its postStart hook failed is recorded with reason Error instead of StartError (breaks HOOK-008).
const PostStartFailureReasonError = true
