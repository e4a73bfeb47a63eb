//go:build !mutant_extra_capability

package mutant

// ExtraCapability, when true (build tag mutant_extra_capability), makes the runtime break a requirement: container processes keep CAP_SYS_ADMIN in their bounding set (breaks SEC-002).
const ExtraCapability = false
