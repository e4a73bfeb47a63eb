//go:build !mutant_deadline_overrides_stop_reason

package mutant

// DeadlineOverridesStopReason, when true (build tag mutant_deadline_overrides_stop_reason), makes the runtime break a requirement: an activeDeadlineSeconds that passes while the stop sequence runs changes the termination reason to DeadlineExceeded (breaks DL-003).
const DeadlineOverridesStopReason = false
