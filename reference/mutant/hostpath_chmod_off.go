//go:build !mutant_hostpath_chmod

package mutant

// HostPathChmod, when true (build tag mutant_hostpath_chmod), makes the runtime break a requirement: the runtime sets a hostPath directory's mode to 0755 when it mounts it (breaks VOL-007).
const HostPathChmod = false
