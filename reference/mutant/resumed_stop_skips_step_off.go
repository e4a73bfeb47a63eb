//go:build !mutant_resumed_stop_skips_step

package mutant

// ResumedStopSkipsStep, when true (build tag mutant_resumed_stop_skips_step), makes the runtime break a requirement: an adopted stop sequence resumes after the step that was running at the loss instead of at it (breaks SUP-006).
const ResumedStopSkipsStep = false
