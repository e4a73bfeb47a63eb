//go:build mutant_grace_update_ignored

package mutant

// GraceUpdateIgnored is true in the mutant build mutant_grace_update_ignored: a changed terminationGracePeriodSeconds is not stored, so the next stop keeps the old grace budget (breaks UPD-015).
const GraceUpdateIgnored = true
