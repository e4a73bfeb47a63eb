//go:build mutant_result_set_at_stop

package mutant

// ResultSetAtStop is true in the mutant build mutant_result_set_at_stop: status.exitCode and status.decidedBy are set when the stop sequence begins, from the exits so far, before the pod is terminal (breaks EXIT-019).
const ResultSetAtStop = true
