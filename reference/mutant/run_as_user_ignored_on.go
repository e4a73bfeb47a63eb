//go:build mutant_run_as_user_ignored

package mutant

// RunAsUserIgnored is true in the mutant build mutant_run_as_user_ignored: securityContext runAsUser and runAsGroup are ignored: the process runs as the image's User (breaks SEC-021).
const RunAsUserIgnored = true
