//go:build mutant_rm_ignores_readers

package mutant

// RmIgnoresReaders is true in the mutant build mutant_rm_ignores_readers: rm takes no lock against readers and deletes a pod's events and logs before it tears down its containers, so a read while rm runs sees the pod without them (breaks GC-005).
const RmIgnoresReaders = true
