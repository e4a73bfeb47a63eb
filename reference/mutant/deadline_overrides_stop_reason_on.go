//go:build mutant_deadline_overrides_stop_reason

package mutant

// DeadlineOverridesStopReason is true in the mutant build mutant_deadline_overrides_stop_reason: an activeDeadlineSeconds that passes while the stop sequence runs changes the termination reason to DeadlineExceeded (breaks DL-003).
const DeadlineOverridesStopReason = true
