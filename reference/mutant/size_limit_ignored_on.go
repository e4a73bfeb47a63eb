//go:build mutant_size_limit_ignored

package mutant

// SizeLimitIgnored is true in the mutant build mutant_size_limit_ignored: a disk-backed emptyDir volume's sizeLimit is never measured, so a pod whose volume outgrows it runs on (breaks VOL-016).
const SizeLimitIgnored = true
