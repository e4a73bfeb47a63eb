//go:build mutant_sidecars_killed

package mutant

// SidecarsKilled is true in the mutant build mutant_sidecars_killed: the stop sequence kills each sidecar with SIGKILL instead of sending its stop signal (breaks STOP-009).
const SidecarsKilled = true
