//go:build !mutant_grace_update_ignored

package mutant

// GraceUpdateIgnored, when true (build tag mutant_grace_update_ignored), makes the runtime break a requirement: a changed terminationGracePeriodSeconds is not stored, so the next stop keeps the old grace budget (breaks UPD-015).
const GraceUpdateIgnored = false
