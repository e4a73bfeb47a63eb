//go:build mutant_grace_zero_graceful

package mutant

// GraceZeroGraceful is true in the mutant build mutant_grace_zero_graceful: a stop request with grace period 0 (without --force) is a graceful stop with a zero budget, not a forced stop (breaks FORCE-001).
const GraceZeroGraceful = true
