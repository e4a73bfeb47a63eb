//go:build mutant_results_capped

package mutant

// ResultsCapped is true in the mutant build mutant_results_capped: `notification results` prints at most 20 pod records (the limit of status.failures), the first by pod name (breaks NOTIF-018).
const ResultsCapped = true
