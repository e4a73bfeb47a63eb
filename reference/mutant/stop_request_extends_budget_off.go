//go:build !mutant_stop_request_extends_budget

package mutant

// StopRequestExtendsBudget, when true (build tag mutant_stop_request_extends_budget), makes the runtime break a requirement: a stop request for a terminating pod whose grace period ends later moves the budget end later (breaks STOP-011).
const StopRequestExtendsBudget = false
