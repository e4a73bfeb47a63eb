//go:build mutant_parallel_init

package mutant

// ParallelInit is true in the mutant build mutant_parallel_init: initContainers start together instead of one after the other (breaks HB-001, HB-002).
const ParallelInit = true
