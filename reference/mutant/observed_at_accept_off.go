//go:build !mutant_observed_at_accept

package mutant

// ObservedAtAccept, when true (build tag mutant_observed_at_accept), makes the runtime break a requirement: status.observedGeneration reaches an update's generation when it is accepted, before its restarts took effect (breaks UPD-006).
const ObservedAtAccept = false
