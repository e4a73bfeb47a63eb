//go:build !mutant_adoption_reruns_completed_init

package mutant

// AdoptionRerunsCompletedInit, when true (build tag mutant_adoption_reruns_completed_init), makes the runtime break a requirement: an adopting supervisor runs again the init containers that had exited 0 (breaks SUP-007).
const AdoptionRerunsCompletedInit = false
