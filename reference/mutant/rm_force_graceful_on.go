//go:build mutant_rm_force_graceful

package mutant

// RmForceGraceful is true in the mutant build mutant_rm_force_graceful: rm --force of a pod that is not terminal stops it gracefully (preStop, stop signal, its grace period) instead of with a forced stop (breaks GC-009).
const RmForceGraceful = true
