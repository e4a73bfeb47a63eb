//go:build !mutant_defer_starts_after_limit

package mutant

// DeferStartsAfterLimit, when true (build tag mutant_defer_starts_after_limit), makes the runtime break a requirement: a defer whose turn comes at or after the limit of its run is started anyway (and killed at once), instead of being skipped with BudgetExhausted (breaks DEFER-006).
const DeferStartsAfterLimit = false
