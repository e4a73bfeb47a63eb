//go:build !mutant_noop_update_bumps_generation

package mutant

// NoopUpdateBumpsGeneration, when true (build tag mutant_noop_update_bumps_generation), makes the runtime break a requirement: an update that changes nothing increases metadata.generation (breaks UPD-005).
const NoopUpdateBumpsGeneration = false
