//go:build !mutant_parallel_init

package mutant

// ParallelInit, when true (build tag mutant_parallel_init), makes the runtime break a requirement: initContainers start together instead of one after the other (breaks HB-001, HB-002).
const ParallelInit = false
