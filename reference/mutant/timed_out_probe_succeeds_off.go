//go:build !mutant_timed_out_probe_succeeds

package mutant

// TimedOutProbeSucceeds, when true (build tag mutant_timed_out_probe_succeeds), makes the runtime break a requirement: a probe attempt killed at its timeoutSeconds counts as a success (breaks HOOK-005).
const TimedOutProbeSucceeds = false
