//go:build mutant_created_at_generation_zero

package mutant

// CreatedAtGenerationZero is true in the mutant build mutant_created_at_generation_zero: a pod is created at metadata.generation 0 (its observedGeneration still starts at 1) (breaks ID-008).
const CreatedAtGenerationZero = true
