//go:build !mutant_gc_default_retention

package mutant

// GCDefaultRetention, when true (build tag mutant_gc_default_retention), makes the runtime break a requirement: gc without --older-than keeps the terminal pods that finished less than an hour before, as if it had a default retention (breaks GC-004).
const GCDefaultRetention = false
