//go:build mutant_prestop_on_probe_kill

package mutant

// PreStopOnProbeKill is true in the mutant build mutant_prestop_on_probe_kill: the preStop hook runs before an instance is killed for a failed liveness probe (breaks HOOK-011).
const PreStopOnProbeKill = true
