//go:build !mutant_deadline_update_from_now

package mutant

// DeadlineUpdateFromNow, when true (build tag mutant_deadline_update_from_now), makes the runtime break a requirement: a changed activeDeadlineSeconds counts from the update instead of from status.startedAt (breaks UPD-014).
const DeadlineUpdateFromNow = false
