//go:build !mutant_readiness_before_started

package mutant

// ReadinessBeforeStarted, when true (build tag mutant_readiness_before_started), makes the runtime break a requirement: the readiness probe runs from the instance's start, before the container is Started (breaks HB-007).
const ReadinessBeforeStarted = false
