//go:build mutant_unstarted_eligible

package mutant

// UnstartedEligible is true in the mutant build mutant_unstarted_eligible: a running container that is not Started (its startup probe has not passed) is eligible for a delivery (breaks NTF-009, NOTIF-011).
const UnstartedEligible = true
