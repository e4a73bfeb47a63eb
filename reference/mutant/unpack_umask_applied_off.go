//go:build !mutant_unpack_umask_applied

package mutant

// UnpackUmaskApplied, when true (build tag mutant_unpack_umask_applied), makes the runtime break a requirement: a FIFO of an image layer keeps the mode mknod gave it under the unpacking process's umask instead of its layer's (breaks IMG-014).
const UnpackUmaskApplied = false
