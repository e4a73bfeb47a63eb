//go:build mutant_read_only_rootfs_ignored

package mutant

// ReadOnlyRootfsIgnored is true in the mutant build mutant_read_only_rootfs_ignored: securityContext readOnlyRootFilesystem is ignored: the root filesystem stays writable (breaks SEC-023).
const ReadOnlyRootfsIgnored = true
