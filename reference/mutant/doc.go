// Package mutant holds the switches of the reference runtime's mutant builds: each exported
// constant, when true, makes the runtime break exactly one requirement of the specification,
// so that CI can check that the conformance suite catches it (scripts/mutants.sh,
// docs/mutants.md).
//
// Every constant is false in a normal build. A mutant build sets exactly one of them with its
// build tag, e.g. `go build -tags mutant_reverse_stop_order ./cmd/podspec`. The runtime tests
// a switch in a one-line branch (`if mutant.ReverseStopOrder { ... }`); with the constant false
// the compiler drops the branch, so the normal binary carries none of the mutant code.
//
// Each switch lives in two files, NAME_on.go (build tag mutant_NAME, constant true) and
// NAME_off.go (the negated tag, constant false).
package mutant
