//go:build !mutant_update_restarts_unchanged

package mutant

// UpdateRestartsUnchanged, when true (build tag mutant_update_restarts_unchanged), makes the runtime break a requirement: an accepted update that restarts a changed container also replaces every running main container it did not change, as a restart of the whole pod would (breaks UPD-009).
const UpdateRestartsUnchanged = false
