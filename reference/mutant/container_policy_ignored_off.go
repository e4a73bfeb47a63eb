//go:build !mutant_container_policy_ignored

package mutant

// ContainerPolicyIgnored, when true (build tag mutant_container_policy_ignored), makes the runtime break a requirement: a container's own restartPolicy is ignored: the pod's spec.restartPolicy applies to it (breaks RST-002).
const ContainerPolicyIgnored = false
