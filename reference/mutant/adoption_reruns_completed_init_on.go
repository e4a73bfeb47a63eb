//go:build mutant_adoption_reruns_completed_init

package mutant

// AdoptionRerunsCompletedInit is true in the mutant build mutant_adoption_reruns_completed_init: an adopting supervisor runs again the init containers that had exited 0 (breaks SUP-007).
const AdoptionRerunsCompletedInit = true
