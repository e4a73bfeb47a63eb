//go:build !mutant_run_as_non_root_ignored

package mutant

// RunAsNonRootIgnored, when true (build tag mutant_run_as_non_root_ignored), makes the runtime break a requirement: securityContext runAsNonRoot is ignored: a container whose user is 0 starts as root (breaks SEC-022).
const RunAsNonRootIgnored = false
