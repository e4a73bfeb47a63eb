//go:build mutant_failures_cap_exceeded

package mutant

// FailuresCapExceeded is true in the mutant build mutant_failures_cap_exceeded: status.failures holds 21 entries, one more than the limit of 20 (breaks NOTIF-017).
const FailuresCapExceeded = true
