//go:build !mutant_probe_period_from_end

package mutant

// ProbePeriodFromEnd, when true (build tag mutant_probe_period_from_end), makes the runtime break a requirement: each probe attempt starts periodSeconds after the previous one ended, not after it began (breaks HOOK-007).
const ProbePeriodFromEnd = false
