//go:build mutant_emptydir_not_empty

package mutant

// EmptyDirNotEmpty is true in the mutant build mutant_emptydir_not_empty: an emptyDir on disk holds a file of the runtime's when the first container starts (breaks VOL-004).
const EmptyDirNotEmpty = true
