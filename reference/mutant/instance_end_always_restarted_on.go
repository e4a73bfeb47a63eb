//go:build mutant_instance_end_always_restarted

package mutant

// InstanceEndAlwaysRestarted is true in the mutant build mutant_instance_end_always_restarted: a delivery whose instance ends under its action is Failed with reason ContainerRestarted also when the pod is terminating or terminal (breaks NTF-013).
const InstanceEndAlwaysRestarted = true
