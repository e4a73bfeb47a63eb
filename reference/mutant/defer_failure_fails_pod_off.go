//go:build !mutant_defer_failure_fails_pod

package mutant

// DeferFailureFailsPod, when true (build tag mutant_defer_failure_fails_pod), makes the runtime break a requirement: a defer whose run failed makes a pod that would succeed Failed, decided by the defer (breaks DEFER-011).
const DeferFailureFailsPod = false
