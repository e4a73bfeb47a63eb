//go:build !mutant_readonly_paths_missing

package mutant

// ReadonlyPathsMissing, when true (build tag mutant_readonly_paths_missing), makes the runtime break a requirement: the OCI config mounts none of /proc/sys, /proc/sysrq-trigger, /proc/irq, /proc/bus read-only (breaks SEC-004).
const ReadonlyPathsMissing = false
