//go:build !mutant_poststart_failure_reason_error

package mutant

// PostStartFailureReasonError, when true (build tag mutant_poststart_failure_reason_error), makes the runtime break a requirement: an instance killed because its postStart hook failed is recorded with reason Error instead of StartError (breaks HOOK-008).
const PostStartFailureReasonError = false
