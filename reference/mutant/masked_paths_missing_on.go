//go:build mutant_masked_paths_missing

package mutant

// MaskedPathsMissing is true in the mutant build mutant_masked_paths_missing: the OCI config masks none of /proc/kcore, /proc/keys, /proc/timer_list, /sys/firmware (breaks SEC-003).
const MaskedPathsMissing = true
