//go:build !mutant_gc_removes_running

package mutant

// GCRemovesRunning, when true (build tag mutant_gc_removes_running), makes the runtime break a requirement: gc without --older-than also removes the pods that are not terminal, stopping them first (breaks GC-002).
const GCRemovesRunning = false
