//go:build mutant_update_restarts_exited

package mutant

// UpdateRestartsExited is true in the mutant build mutant_update_restarts_exited: an update that changes a main container which exited terminally starts it again (breaks UPD-013).
const UpdateRestartsExited = true
