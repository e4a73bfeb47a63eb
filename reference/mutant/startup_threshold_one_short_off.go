//go:build !mutant_startup_threshold_one_short

package mutant

// StartupThresholdOneShort, when true (build tag mutant_startup_threshold_one_short), makes the runtime break a requirement: a startup probe gives up after failureThreshold-1 consecutive failures, one early (breaks HOOK-009).
const StartupThresholdOneShort = false
