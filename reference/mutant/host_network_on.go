//go:build mutant_host_network

package mutant

// HostNetwork is true in the mutant build mutant_host_network: the pod's containers run in the host's network namespace, not a namespace of the pod's with only the loopback interface (breaks SEC-009).
const HostNetwork = true
