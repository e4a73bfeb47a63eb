//go:build !mutant_stale_rootfs

package mutant

// StaleRootfs, when true (build tag mutant_stale_rootfs), makes the runtime break a requirement: a restarted container reuses the root filesystem of its previous instance (breaks RST-004, IMG-009).
const StaleRootfs = false
