//go:build !mutant_failed_events_dropped

package mutant

// FailedEventsDropped, when true (build tag mutant_failed_events_dropped), makes the runtime break a requirement: events the supervisor could not write (a full disk) are dropped instead of held for the next write, but keep the sequence numbers they were given, so once there is room the sequence has a gap (breaks SUP-009).
const FailedEventsDropped = false
