//go:build mutant_gc_removes_running

package mutant

// GCRemovesRunning is true in the mutant build mutant_gc_removes_running: gc without --older-than also removes the pods that are not terminal, stopping them first (breaks GC-002).
const GCRemovesRunning = true
