//go:build mutant_noop_update_bumps_generation

package mutant

// NoopUpdateBumpsGeneration is true in the mutant build mutant_noop_update_bumps_generation: an update that changes nothing increases metadata.generation (breaks UPD-005).
const NoopUpdateBumpsGeneration = true
