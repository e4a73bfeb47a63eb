//go:build mutant_ready_at_started

package mutant

// ReadyAtStarted is true in the mutant build mutant_ready_at_started: a container with a readinessProbe is reported ready once it is Started, before its probe succeeded (breaks DEP-008).
const ReadyAtStarted = true
