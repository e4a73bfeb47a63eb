//go:build !mutant_termination_reason_lowercase

package mutant

// TerminationReasonLowercase, when true (build tag mutant_termination_reason_lowercase), makes the runtime break a requirement: PODSPEC_TERMINATION_REASON holds the termination reason in lower case (breaks DEFER-003).
const TerminationReasonLowercase = false
