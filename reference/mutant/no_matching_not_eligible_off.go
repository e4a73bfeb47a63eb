//go:build !mutant_no_matching_not_eligible

package mutant

// NoMatchingNotEligible, when true (build tag mutant_no_matching_not_eligible), makes the runtime break a requirement: a target pod in which no container declares the notifier is Skipped with reason NotEligible instead of NoMatchingContainers (breaks NOTIF-010).
const NoMatchingNotEligible = false
