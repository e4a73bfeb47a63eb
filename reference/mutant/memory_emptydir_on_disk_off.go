//go:build !mutant_memory_emptydir_on_disk

package mutant

// MemoryEmptyDirOnDisk, when true (build tag mutant_memory_emptydir_on_disk), makes the runtime break a requirement: an emptyDir with medium: Memory is a plain directory on disk, not a tmpfs (breaks VOL-006).
const MemoryEmptyDirOnDisk = false
