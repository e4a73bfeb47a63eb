//go:build mutant_extra_capability

package mutant

// ExtraCapability is true in the mutant build mutant_extra_capability: container processes keep CAP_SYS_ADMIN in their bounding set (breaks SEC-002).
const ExtraCapability = true
