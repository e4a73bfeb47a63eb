//go:build mutant_anyfailure_fires_on_any_exit

package mutant

// AnyFailureFiresOnAnyExit is true in the mutant build mutant_anyfailure_fires_on_any_exit: with exitPolicy AnyFailure, the policy fires at the first terminal exit of a main container, a success too, as Any does (breaks EXIT-005).
const AnyFailureFiresOnAnyExit = true
