//go:build !mutant_defers_in_parallel

package mutant

// DefersInParallel, when true (build tag mutant_defers_in_parallel), makes the runtime break a requirement: the defer containers of one phase run all at once instead of one after the other (breaks HB-010).
const DefersInParallel = false
