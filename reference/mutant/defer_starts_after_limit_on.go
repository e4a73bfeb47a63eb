//go:build mutant_defer_starts_after_limit

package mutant

// DeferStartsAfterLimit is true in the mutant build mutant_defer_starts_after_limit: a defer whose turn comes at or after the limit of its run is started anyway (and killed at once), instead of being skipped with BudgetExhausted (breaks DEFER-006).
const DeferStartsAfterLimit = true
