//go:build !mutant_anyfailure_fires_on_any_exit

package mutant

// AnyFailureFiresOnAnyExit, when true (build tag mutant_anyfailure_fires_on_any_exit), makes the runtime break a requirement: with exitPolicy AnyFailure, the policy fires at the first terminal exit of a main container, a success too, as Any does (breaks EXIT-005).
const AnyFailureFiresOnAnyExit = false
