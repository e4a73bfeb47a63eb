//go:build !mutant_shorter_grace_from_first_request

package mutant

// ShorterGraceFromFirstRequest, when true (build tag mutant_shorter_grace_from_first_request), makes the runtime break a requirement: a second stop request's shorter grace period is counted from the first stop request instead of from its own (breaks STOP-012).
const ShorterGraceFromFirstRequest = false
