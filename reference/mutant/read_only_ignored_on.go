//go:build mutant_read_only_ignored

package mutant

// ReadOnlyIgnored is true in the mutant build mutant_read_only_ignored: a volume mount with readOnly: true is mounted read-write (breaks VOL-009).
const ReadOnlyIgnored = true
