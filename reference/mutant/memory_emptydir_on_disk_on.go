//go:build mutant_memory_emptydir_on_disk

package mutant

// MemoryEmptyDirOnDisk is true in the mutant build mutant_memory_emptydir_on_disk: an emptyDir with medium: Memory is a plain directory on disk, not a tmpfs (breaks VOL-006).
const MemoryEmptyDirOnDisk = true
