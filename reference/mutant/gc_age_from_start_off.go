//go:build !mutant_gc_age_from_start

package mutant

// GCAgeFromStart, when true (build tag mutant_gc_age_from_start), makes the runtime break a requirement: gc --older-than measures a pod's age from status.startedAt instead of status.finishedAt (breaks GC-003).
const GCAgeFromStart = false
