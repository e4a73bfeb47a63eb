//go:build !mutant_termination_reason_from_last_exit

package mutant

// TerminationReasonFromLastExit, when true (build tag mutant_termination_reason_from_last_exit), makes the runtime break a requirement: when the exit policy fires, the termination reason comes from the exit that fired it alone: Completed although an earlier main container failed terminally (breaks EXIT-006).
const TerminationReasonFromLastExit = false
