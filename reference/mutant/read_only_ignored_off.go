//go:build !mutant_read_only_ignored

package mutant

// ReadOnlyIgnored, when true (build tag mutant_read_only_ignored), makes the runtime break a requirement: a volume mount with readOnly: true is mounted read-write (breaks VOL-009).
const ReadOnlyIgnored = false
