//go:build mutant_adopted_backoff_restarted

package mutant

// AdoptedBackoffRestarted is true in the mutant build mutant_adopted_backoff_restarted: an adopting supervisor waits a container's whole back-off delay again from the adoption instead of until the moment decided before the loss (breaks SUP-008).
const AdoptedBackoffRestarted = true
