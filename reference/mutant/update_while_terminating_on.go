//go:build mutant_update_while_terminating

package mutant

// UpdateWhileTerminating is true in the mutant build mutant_update_while_terminating: an update of a pod that is terminating is accepted (breaks UPD-004).
const UpdateWhileTerminating = true
