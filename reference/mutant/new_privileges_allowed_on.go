//go:build mutant_new_privileges_allowed

package mutant

// NewPrivilegesAllowed is true in the mutant build mutant_new_privileges_allowed: container processes start without noNewPrivileges (breaks SEC-001).
const NewPrivilegesAllowed = true
