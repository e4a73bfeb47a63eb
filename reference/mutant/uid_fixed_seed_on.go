//go:build mutant_uid_fixed_seed

package mutant

// UIDFixedSeed is true in the mutant build mutant_uid_fixed_seed: pod UIDs come from a random generator with a fixed seed, so every runtime process gives its first pod the same UID (breaks ID-006).
const UIDFixedSeed = true
