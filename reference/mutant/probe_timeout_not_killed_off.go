//go:build !mutant_probe_timeout_not_killed

package mutant

// ProbeTimeoutNotKilled, when true (build tag mutant_probe_timeout_not_killed), makes the runtime break a requirement: a probe attempt that outlives timeoutSeconds is counted as a failure but left running, not killed (breaks HOOK-006).
const ProbeTimeoutNotKilled = false
