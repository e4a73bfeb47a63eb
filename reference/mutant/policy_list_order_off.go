//go:build !mutant_policy_list_order

package mutant

// PolicyListOrder, when true (build tag mutant_policy_list_order), makes the runtime break a requirement: the exit policy is evaluated over the main containers in list order, not over the terminal exits in event order: the exit that fires it is taken to be the first terminal main container in the list (breaks EXIT-008).
const PolicyListOrder = false
