//go:build !mutant_adoption_recreates_instances

package mutant

// AdoptionRecreatesInstances, when true (build tag mutant_adoption_recreates_instances), makes the runtime break a requirement: an adopting supervisor kills the instances it finds running and starts new ones in their place (breaks SUP-004).
const AdoptionRecreatesInstances = false
