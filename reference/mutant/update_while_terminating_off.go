//go:build !mutant_update_while_terminating

package mutant

// UpdateWhileTerminating, when true (build tag mutant_update_while_terminating), makes the runtime break a requirement: an update of a pod that is terminating is accepted (breaks UPD-004).
const UpdateWhileTerminating = false
