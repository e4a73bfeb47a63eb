//go:build !mutant_init_always_as_never

package mutant

// InitAlwaysAsNever, when true (build tag mutant_init_always_as_never), makes the runtime break a requirement: a regular init container whose resolved restart policy is Always is never restarted, as under Never (breaks INIT-002).
const InitAlwaysAsNever = false
