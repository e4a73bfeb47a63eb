//go:build !mutant_restart_count_counts_first

package mutant

// RestartCountCountsFirst, when true (build tag mutant_restart_count_counts_first), makes the runtime break a requirement: restartCount counts every instance started, the first one too (breaks RST-006).
const RestartCountCountsFirst = false
