//go:build mutant_readonly_paths_missing

package mutant

// ReadonlyPathsMissing is true in the mutant build mutant_readonly_paths_missing: the OCI config mounts none of /proc/sys, /proc/sysrq-trigger, /proc/irq, /proc/bus read-only (breaks SEC-004).
const ReadonlyPathsMissing = true
