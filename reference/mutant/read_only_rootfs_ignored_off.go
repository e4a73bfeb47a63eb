//go:build !mutant_read_only_rootfs_ignored

package mutant

// ReadOnlyRootfsIgnored, when true (build tag mutant_read_only_rootfs_ignored), makes the runtime break a requirement: securityContext readOnlyRootFilesystem is ignored: the root filesystem stays writable (breaks SEC-023).
const ReadOnlyRootfsIgnored = false
