//go:build mutant_readiness_threshold_one_late

package mutant

// ReadinessThresholdOneLate is true in the mutant build mutant_readiness_threshold_one_late: a Ready container becomes not Ready only after failureThreshold+1 consecutive readiness failures, one late (breaks HOOK-013).
const ReadinessThresholdOneLate = true
