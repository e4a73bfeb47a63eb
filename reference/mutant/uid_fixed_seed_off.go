//go:build !mutant_uid_fixed_seed

package mutant

// UIDFixedSeed, when true (build tag mutant_uid_fixed_seed), makes the runtime break a requirement: pod UIDs come from a random generator with a fixed seed, so every runtime process gives its first pod the same UID (breaks ID-006).
const UIDFixedSeed = false
