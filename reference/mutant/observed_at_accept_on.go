//go:build mutant_observed_at_accept

package mutant

// ObservedAtAccept is true in the mutant build mutant_observed_at_accept: status.observedGeneration reaches an update's generation when it is accepted, before its restarts took effect (breaks UPD-006).
const ObservedAtAccept = true
