//go:build !mutant_adopted_backoff_restarted

package mutant

// AdoptedBackoffRestarted, when true (build tag mutant_adopted_backoff_restarted), makes the runtime break a requirement: an adopting supervisor waits a container's whole back-off delay again from the adoption instead of until the moment decided before the loss (breaks SUP-008).
const AdoptedBackoffRestarted = false
