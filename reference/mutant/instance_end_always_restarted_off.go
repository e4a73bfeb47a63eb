//go:build !mutant_instance_end_always_restarted

package mutant

// InstanceEndAlwaysRestarted, when true (build tag mutant_instance_end_always_restarted), makes the runtime break a requirement: a delivery whose instance ends under its action is Failed with reason ContainerRestarted also when the pod is terminating or terminal (breaks NTF-013).
const InstanceEndAlwaysRestarted = false
