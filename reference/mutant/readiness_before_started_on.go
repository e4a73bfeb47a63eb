//go:build mutant_readiness_before_started

package mutant

// ReadinessBeforeStarted is true in the mutant build mutant_readiness_before_started: the readiness probe runs from the instance's start, before the container is Started (breaks HB-007).
const ReadinessBeforeStarted = true
