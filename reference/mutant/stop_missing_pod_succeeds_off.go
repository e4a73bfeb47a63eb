//go:build !mutant_stop_missing_pod_succeeds

package mutant

// StopMissingPodSucceeds, when true (build tag mutant_stop_missing_pod_succeeds), makes the runtime break a requirement: a stop request naming a pod that does not exist succeeds, as one for a terminal pod does, instead of failing with NotFound (breaks GC-007).
const StopMissingPodSucceeds = false
