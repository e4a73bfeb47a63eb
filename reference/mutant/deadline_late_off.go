//go:build !mutant_deadline_late

package mutant

// DeadlineLate, when true (build tag mutant_deadline_late), makes the runtime break a requirement: activeDeadlineSeconds ends the pod 3 s after its moment (breaks DL-002, TIME-002).
const DeadlineLate = false
