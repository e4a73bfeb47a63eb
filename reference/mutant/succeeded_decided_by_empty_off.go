//go:build !mutant_succeeded_decided_by_empty

package mutant

// SucceededDecidedByEmpty, when true (build tag mutant_succeeded_decided_by_empty), makes the runtime break a requirement: a Succeeded pod's decidedBy is empty although the exit policy fired at a main container's exit (breaks EXIT-016).
const SucceededDecidedByEmpty = false
