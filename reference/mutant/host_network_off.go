//go:build !mutant_host_network

package mutant

// HostNetwork, when true (build tag mutant_host_network), makes the runtime break a requirement: the pod's containers run in the host's network namespace, not a namespace of the pod's with only the loopback interface (breaks SEC-009).
const HostNetwork = false
