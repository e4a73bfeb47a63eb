//go:build !mutant_masked_paths_missing

package mutant

// MaskedPathsMissing, when true (build tag mutant_masked_paths_missing), makes the runtime break a requirement: the OCI config masks none of /proc/kcore, /proc/keys, /proc/timer_list, /sys/firmware (breaks SEC-003).
const MaskedPathsMissing = false
