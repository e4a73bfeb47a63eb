//go:build mutant_probe_timeout_not_killed

package mutant

// ProbeTimeoutNotKilled is true in the mutant build mutant_probe_timeout_not_killed: a probe attempt that outlives timeoutSeconds is counted as a failure but left running, not killed (breaks HOOK-006).
const ProbeTimeoutNotKilled = true
