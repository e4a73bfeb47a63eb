//go:build !mutant_allpods_final_phase

package mutant

// AllPodsFinalPhase, when true (build tag mutant_allpods_final_phase), makes the runtime break a requirement: an AllPods Notification whose pod records are all final gets a final phase while it exists (breaks NOTIF-015).
const AllPodsFinalPhase = false
