//go:build !mutant_terminating_stays_true

package mutant

// TerminatingStaysTrue, when true (build tag mutant_terminating_stays_true), makes the runtime break a requirement: the Terminating condition stays True once the pod is terminal (breaks STOP-004).
const TerminatingStaysTrue = false
