//go:build !mutant_ready_at_started

package mutant

// ReadyAtStarted, when true (build tag mutant_ready_at_started), makes the runtime break a requirement: a container with a readinessProbe is reported ready once it is Started, before its probe succeeded (breaks DEP-008).
const ReadyAtStarted = false
