//go:build mutant_stop_missing_pod_succeeds

package mutant

// StopMissingPodSucceeds is true in the mutant build mutant_stop_missing_pod_succeeds: a stop request naming a pod that does not exist succeeds, as one for a terminal pod does, instead of failing with NotFound (breaks GC-007).
const StopMissingPodSucceeds = true
