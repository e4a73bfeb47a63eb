//go:build mutant_policy_list_order

package mutant

// PolicyListOrder is true in the mutant build mutant_policy_list_order: the exit policy is evaluated over the main containers in list order, not over the terminal exits in event order: the exit that fires it is taken to be the first terminal main container in the list (breaks EXIT-008).
const PolicyListOrder = true
