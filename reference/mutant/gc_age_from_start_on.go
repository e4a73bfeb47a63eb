//go:build mutant_gc_age_from_start

package mutant

// GCAgeFromStart is true in the mutant build mutant_gc_age_from_start: gc --older-than measures a pod's age from status.startedAt instead of status.finishedAt (breaks GC-003).
const GCAgeFromStart = true
