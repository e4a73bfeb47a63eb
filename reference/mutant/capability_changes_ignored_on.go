//go:build mutant_capability_changes_ignored

package mutant

// CapabilityChangesIgnored is true in the mutant build mutant_capability_changes_ignored: securityContext capabilities add and drop are ignored: the process keeps the default set (breaks SEC-024).
const CapabilityChangesIgnored = true
