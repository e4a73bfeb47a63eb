//go:build mutant_termination_reason_lowercase

package mutant

// TerminationReasonLowercase is true in the mutant build mutant_termination_reason_lowercase: PODSPEC_TERMINATION_REASON holds the termination reason in lower case (breaks DEFER-003).
const TerminationReasonLowercase = true
