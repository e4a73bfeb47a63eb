//go:build !mutant_failures_cap_exceeded

package mutant

// FailuresCapExceeded, when true (build tag mutant_failures_cap_exceeded), makes the runtime break a requirement: status.failures holds 21 entries, one more than the limit of 20 (breaks NOTIF-017).
const FailuresCapExceeded = false
