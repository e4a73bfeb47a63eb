//go:build !mutant_unstarted_eligible

package mutant

// UnstartedEligible, when true (build tag mutant_unstarted_eligible), makes the runtime break a requirement: a running container that is not Started (its startup probe has not passed) is eligible for a delivery (breaks NTF-009, NOTIF-011).
const UnstartedEligible = false
