//go:build mutant_container_policy_ignored

package mutant

// ContainerPolicyIgnored is true in the mutant build mutant_container_policy_ignored: a container's own restartPolicy is ignored: the pod's spec.restartPolicy applies to it (breaks RST-002).
const ContainerPolicyIgnored = true
