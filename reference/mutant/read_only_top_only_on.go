//go:build mutant_read_only_top_only

package mutant

// ReadOnlyTopOnly is true in the mutant build mutant_read_only_top_only: a read-only volume mount is read-only at its top only, its submounts stay writable (breaks VOL-009).
const ReadOnlyTopOnly = true
