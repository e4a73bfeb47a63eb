//go:build mutant_startup_threshold_one_short

package mutant

// StartupThresholdOneShort is true in the mutant build mutant_startup_threshold_one_short: a startup probe gives up after failureThreshold-1 consecutive failures, one early (breaks HOOK-009).
const StartupThresholdOneShort = true
