//go:build !mutant_run_as_user_ignored

package mutant

// RunAsUserIgnored, when true (build tag mutant_run_as_user_ignored), makes the runtime break a requirement: securityContext runAsUser and runAsGroup are ignored: the process runs as the image's User (breaks SEC-021).
const RunAsUserIgnored = false
