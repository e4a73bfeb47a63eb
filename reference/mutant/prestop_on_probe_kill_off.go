//go:build !mutant_prestop_on_probe_kill

package mutant

// PreStopOnProbeKill, when true (build tag mutant_prestop_on_probe_kill), makes the runtime break a requirement: the preStop hook runs before an instance is killed for a failed liveness probe (breaks HOOK-011).
const PreStopOnProbeKill = false
