//go:build !mutant_emptydir_not_empty

package mutant

// EmptyDirNotEmpty, when true (build tag mutant_emptydir_not_empty), makes the runtime break a requirement: an emptyDir on disk holds a file of the runtime's when the first container starts (breaks VOL-004).
const EmptyDirNotEmpty = false
