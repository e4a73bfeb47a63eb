//go:build !mutant_runc_capabilities

package mutant

// RuncCapabilities, when true (build tag mutant_runc_capabilities), makes the runtime break a requirement: container processes get runc spec's three capabilities (CAP_AUDIT_WRITE, CAP_KILL, CAP_NET_BIND_SERVICE) instead of Docker's 14, so a process that starts as root can neither chown nor change its user (breaks SEC-011).
const RuncCapabilities = false
