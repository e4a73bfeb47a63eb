//go:build mutant_adoption_recreates_instances

package mutant

// AdoptionRecreatesInstances is true in the mutant build mutant_adoption_recreates_instances: an adopting supervisor kills the instances it finds running and starts new ones in their place (breaks SUP-004).
const AdoptionRecreatesInstances = true
