//go:build !mutant_started_at_first_main

package mutant

// StartedAtFirstMain, when true (build tag mutant_started_at_first_main), makes the runtime break a requirement: status.startedAt is set when the first main container starts, not the first container instance of the pod (an init container) (breaks DL-001).
const StartedAtFirstMain = false
