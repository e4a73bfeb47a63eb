//go:build mutant_restart_count_counts_first

package mutant

// RestartCountCountsFirst is true in the mutant build mutant_restart_count_counts_first: restartCount counts every instance started, the first one too (breaks RST-006).
const RestartCountCountsFirst = true
