//go:build !mutant_policy_fired_repeated

package mutant

// PolicyFiredRepeated, when true (build tag mutant_policy_fired_repeated), makes the runtime break a requirement: PolicyFired is recorded again at every terminal exit of a main container after the exit policy fired (breaks EXIT-007).
const PolicyFiredRepeated = false
