//go:build mutant_update_restarts_unchanged

package mutant

// UpdateRestartsUnchanged is true in the mutant build mutant_update_restarts_unchanged: an accepted update that restarts a changed container also replaces every running main container it did not change, as a restart of the whole pod would (breaks UPD-009).
const UpdateRestartsUnchanged = true
