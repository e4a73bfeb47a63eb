//go:build mutant_no_matching_not_eligible

package mutant

// NoMatchingNotEligible is true in the mutant build mutant_no_matching_not_eligible: a target pod in which no container declares the notifier is Skipped with reason NotEligible instead of NoMatchingContainers (breaks NOTIF-010).
const NoMatchingNotEligible = true
