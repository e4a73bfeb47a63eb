//go:build mutant_defer_failure_fails_pod

package mutant

// DeferFailureFailsPod is true in the mutant build mutant_defer_failure_fails_pod: a defer whose run failed makes a pod that would succeed Failed, decided by the defer (breaks DEFER-011).
const DeferFailureFailsPod = true
