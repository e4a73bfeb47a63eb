//go:build !mutant_probe_kill_completed

package mutant

// ProbeKillCompleted, when true (build tag mutant_probe_kill_completed), makes the runtime break a requirement: condition Completed is decided by the exit code alone: a dependency the runtime killed after a failed probe that exits 0 on its stop signal counts as Completed, and its dependents start (breaks DEP-010).
const ProbeKillCompleted = false
