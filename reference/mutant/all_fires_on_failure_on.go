//go:build mutant_all_fires_on_failure

package mutant

// AllFiresOnFailure is true in the mutant build mutant_all_fires_on_failure: with exitPolicy All, the policy fires at the first terminal failure of a main container, as AnyFailure does (breaks EXIT-003).
const AllFiresOnFailure = true
