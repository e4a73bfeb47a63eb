//go:build !mutant_capability_changes_ignored

package mutant

// CapabilityChangesIgnored, when true (build tag mutant_capability_changes_ignored), makes the runtime break a requirement: securityContext capabilities add and drop are ignored: the process keeps the default set (breaks SEC-024).
const CapabilityChangesIgnored = false
