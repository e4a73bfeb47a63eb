//go:build !mutant_created_at_generation_zero

package mutant

// CreatedAtGenerationZero, when true (build tag mutant_created_at_generation_zero), makes the runtime break a requirement: a pod is created at metadata.generation 0 (its observedGeneration still starts at 1) (breaks ID-008).
const CreatedAtGenerationZero = false
