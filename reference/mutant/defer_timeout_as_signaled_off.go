//go:build !mutant_defer_timeout_as_signaled

package mutant

// DeferTimeoutAsSignaled, when true (build tag mutant_defer_timeout_as_signaled), makes the runtime break a requirement: a defer killed at the limit of its run is recorded with reason Signaled instead of Timeout (breaks DEFER-005).
const DeferTimeoutAsSignaled = false
