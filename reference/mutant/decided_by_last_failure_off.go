//go:build !mutant_decided_by_last_failure

package mutant

// DecidedByLastFailure, when true (build tag mutant_decided_by_last_failure), makes the runtime break a requirement: a Failed pod's decidedBy and exitCode come from the last failing terminal exit instead of the first (breaks EXIT-015).
const DecidedByLastFailure = false
