//go:build mutant_stale_rootfs

package mutant

// StaleRootfs is true in the mutant build mutant_stale_rootfs: a restarted container reuses the root filesystem of its previous instance (breaks RST-004, IMG-009).
const StaleRootfs = true
