//go:build mutant_runc_capabilities

package mutant

// RuncCapabilities is true in the mutant build mutant_runc_capabilities: container processes get runc spec's three capabilities (CAP_AUDIT_WRITE, CAP_KILL, CAP_NET_BIND_SERVICE) instead of Docker's 14, so a process that starts as root can neither chown nor change its user (breaks SEC-011).
const RuncCapabilities = true
