//go:build !mutant_rm_force_graceful

package mutant

// RmForceGraceful, when true (build tag mutant_rm_force_graceful), makes the runtime break a requirement: rm --force of a pod that is not terminal stops it gracefully (preStop, stop signal, its grace period) instead of with a forced stop (breaks GC-009).
const RmForceGraceful = false
