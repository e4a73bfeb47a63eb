//go:build mutant_stop_request_extends_budget

package mutant

// StopRequestExtendsBudget is true in the mutant build mutant_stop_request_extends_budget: a stop request for a terminating pod whose grace period ends later moves the budget end later (breaks STOP-011).
const StopRequestExtendsBudget = true
