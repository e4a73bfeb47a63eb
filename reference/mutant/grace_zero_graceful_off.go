//go:build !mutant_grace_zero_graceful

package mutant

// GraceZeroGraceful, when true (build tag mutant_grace_zero_graceful), makes the runtime break a requirement: a stop request with grace period 0 (without --force) is a graceful stop with a zero budget, not a forced stop (breaks FORCE-001).
const GraceZeroGraceful = false
