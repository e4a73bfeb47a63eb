//go:build !mutant_sidecars_killed

package mutant

// SidecarsKilled, when true (build tag mutant_sidecars_killed), makes the runtime break a requirement: the stop sequence kills each sidecar with SIGKILL instead of sending its stop signal (breaks STOP-009).
const SidecarsKilled = false
