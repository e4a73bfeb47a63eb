//go:build mutant_hostpath_chmod

package mutant

// HostPathChmod is true in the mutant build mutant_hostpath_chmod: the runtime sets a hostPath directory's mode to 0755 when it mounts it (breaks VOL-007).
const HostPathChmod = true
