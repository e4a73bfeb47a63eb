//go:build mutant_succeeded_decided_by_empty

package mutant

// SucceededDecidedByEmpty is true in the mutant build mutant_succeeded_decided_by_empty: a Succeeded pod's decidedBy is empty although the exit policy fired at a main container's exit (breaks EXIT-016).
const SucceededDecidedByEmpty = true
