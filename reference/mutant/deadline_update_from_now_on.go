//go:build mutant_deadline_update_from_now

package mutant

// DeadlineUpdateFromNow is true in the mutant build mutant_deadline_update_from_now: a changed activeDeadlineSeconds counts from the update instead of from status.startedAt (breaks UPD-014).
const DeadlineUpdateFromNow = true
