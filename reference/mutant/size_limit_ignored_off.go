//go:build !mutant_size_limit_ignored

package mutant

// SizeLimitIgnored, when true (build tag mutant_size_limit_ignored), makes the runtime break a requirement: a disk-backed emptyDir volume's sizeLimit is never measured, so a pod whose volume outgrows it runs on (breaks VOL-016).
const SizeLimitIgnored = false
