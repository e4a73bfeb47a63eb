//go:build !mutant_result_set_at_stop

package mutant

// ResultSetAtStop, when true (build tag mutant_result_set_at_stop), makes the runtime break a requirement: status.exitCode and status.decidedBy are set when the stop sequence begins, from the exits so far, before the pod is terminal (breaks EXIT-019).
const ResultSetAtStop = false
