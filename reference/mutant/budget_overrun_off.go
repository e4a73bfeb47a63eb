//go:build !mutant_budget_overrun

package mutant

// BudgetOverrun, when true (build tag mutant_budget_overrun), makes the runtime break a requirement: the budget end, and with it SIGKILL, comes 3 s after the grace budget (breaks STOP-003, STOP-010, TIME-002).
const BudgetOverrun = false
