//go:build mutant_deadline_late

package mutant

// DeadlineLate is true in the mutant build mutant_deadline_late: activeDeadlineSeconds ends the pod 3 s after its moment (breaks DL-002, TIME-002).
const DeadlineLate = true
