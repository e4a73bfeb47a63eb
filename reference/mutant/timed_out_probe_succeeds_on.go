//go:build mutant_timed_out_probe_succeeds

package mutant

// TimedOutProbeSucceeds is true in the mutant build mutant_timed_out_probe_succeeds: a probe attempt killed at its timeoutSeconds counts as a success (breaks HOOK-005).
const TimedOutProbeSucceeds = true
