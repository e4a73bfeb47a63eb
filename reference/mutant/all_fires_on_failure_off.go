//go:build !mutant_all_fires_on_failure

package mutant

// AllFiresOnFailure, when true (build tag mutant_all_fires_on_failure), makes the runtime break a requirement: with exitPolicy All, the policy fires at the first terminal failure of a main container, as AnyFailure does (breaks EXIT-003).
const AllFiresOnFailure = false
