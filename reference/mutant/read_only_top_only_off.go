//go:build !mutant_read_only_top_only

package mutant

// ReadOnlyTopOnly, when true (build tag mutant_read_only_top_only), makes the runtime break a requirement: a read-only volume mount is read-only at its top only, its submounts stay writable (breaks VOL-009).
const ReadOnlyTopOnly = false
