//go:build mutant_allpods_final_phase

package mutant

// AllPodsFinalPhase is true in the mutant build mutant_allpods_final_phase: an AllPods Notification whose pod records are all final gets a final phase while it exists (breaks NOTIF-015).
const AllPodsFinalPhase = true
