//go:build mutant_gc_default_retention

package mutant

// GCDefaultRetention is true in the mutant build mutant_gc_default_retention: gc without --older-than keeps the terminal pods that finished less than an hour before, as if it had a default retention (breaks GC-004).
const GCDefaultRetention = true
