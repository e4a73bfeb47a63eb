//go:build mutant_init_always_as_never

package mutant

// InitAlwaysAsNever is true in the mutant build mutant_init_always_as_never: a regular init container whose resolved restart policy is Always is never restarted, as under Never (breaks INIT-002).
const InitAlwaysAsNever = true
