//go:build mutant_policy_fired_repeated

package mutant

// PolicyFiredRepeated is true in the mutant build mutant_policy_fired_repeated: PolicyFired is recorded again at every terminal exit of a main container after the exit policy fired (breaks EXIT-007).
const PolicyFiredRepeated = true
