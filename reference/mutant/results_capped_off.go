//go:build !mutant_results_capped

package mutant

// ResultsCapped, when true (build tag mutant_results_capped), makes the runtime break a requirement: `notification results` prints at most 20 pod records (the limit of status.failures), the first by pod name (breaks NOTIF-018).
const ResultsCapped = false
