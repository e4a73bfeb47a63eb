//go:build mutant_probe_period_from_end

package mutant

// ProbePeriodFromEnd is true in the mutant build mutant_probe_period_from_end: each probe attempt starts periodSeconds after the previous one ended, not after it began (breaks HOOK-007).
const ProbePeriodFromEnd = true
