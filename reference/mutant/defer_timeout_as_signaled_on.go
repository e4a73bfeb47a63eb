//go:build mutant_defer_timeout_as_signaled

package mutant

// DeferTimeoutAsSignaled is true in the mutant build mutant_defer_timeout_as_signaled: a defer killed at the limit of its run is recorded with reason Signaled instead of Timeout (breaks DEFER-005).
const DeferTimeoutAsSignaled = true
