//go:build !mutant_new_privileges_allowed

package mutant

// NewPrivilegesAllowed, when true (build tag mutant_new_privileges_allowed), makes the runtime break a requirement: container processes start without noNewPrivileges (breaks SEC-001).
const NewPrivilegesAllowed = false
