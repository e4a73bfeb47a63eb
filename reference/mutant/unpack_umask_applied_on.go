//go:build mutant_unpack_umask_applied

package mutant

// UnpackUmaskApplied is true in the mutant build mutant_unpack_umask_applied: a FIFO of an image layer keeps the mode mknod gave it under the unpacking process's umask instead of its layer's (breaks IMG-014).
const UnpackUmaskApplied = true
