//go:build mutant_terminating_stays_true

package mutant

// TerminatingStaysTrue is true in the mutant build mutant_terminating_stays_true: the Terminating condition stays True once the pod is terminal (breaks STOP-004).
const TerminatingStaysTrue = true
