//go:build !mutant_update_restarts_exited

package mutant

// UpdateRestartsExited, when true (build tag mutant_update_restarts_exited), makes the runtime break a requirement: an update that changes a main container which exited terminally starts it again (breaks UPD-013).
const UpdateRestartsExited = false
