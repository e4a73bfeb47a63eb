//go:build mutant_budget_overrun

package mutant

// BudgetOverrun is true in the mutant build mutant_budget_overrun: the budget end, and with it SIGKILL, comes 3 s after the grace budget (breaks STOP-003, STOP-010, TIME-002).
const BudgetOverrun = true
