//go:build !mutant_readiness_threshold_one_late

package mutant

// ReadinessThresholdOneLate, when true (build tag mutant_readiness_threshold_one_late), makes the runtime break a requirement: a Ready container becomes not Ready only after failureThreshold+1 consecutive readiness failures, one late (breaks HOOK-013).
const ReadinessThresholdOneLate = false
