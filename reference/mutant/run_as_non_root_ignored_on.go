//go:build mutant_run_as_non_root_ignored

package mutant

// RunAsNonRootIgnored is true in the mutant build mutant_run_as_non_root_ignored: securityContext runAsNonRoot is ignored: a container whose user is 0 starts as root (breaks SEC-022).
const RunAsNonRootIgnored = true
