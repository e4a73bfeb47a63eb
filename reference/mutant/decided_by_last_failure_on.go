//go:build mutant_decided_by_last_failure

package mutant

// DecidedByLastFailure is true in the mutant build mutant_decided_by_last_failure: a Failed pod's decidedBy and exitCode come from the last failing terminal exit instead of the first (breaks EXIT-015).
const DecidedByLastFailure = true
