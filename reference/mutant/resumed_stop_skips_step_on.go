//go:build mutant_resumed_stop_skips_step

package mutant

// ResumedStopSkipsStep is true in the mutant build mutant_resumed_stop_skips_step: an adopted stop sequence resumes after the step that was running at the loss instead of at it (breaks SUP-006).
const ResumedStopSkipsStep = true
