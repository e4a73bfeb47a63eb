//go:build mutant_defers_in_parallel

package mutant

// DefersInParallel is true in the mutant build mutant_defers_in_parallel: the defer containers of one phase run all at once instead of one after the other (breaks HB-010).
const DefersInParallel = true
