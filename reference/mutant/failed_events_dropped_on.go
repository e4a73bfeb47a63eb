//go:build mutant_failed_events_dropped

package mutant

// FailedEventsDropped is true in the mutant build mutant_failed_events_dropped: events the supervisor could not write (a full disk) are dropped instead of held for the next write, but keep the sequence numbers they were given, so once there is room the sequence has a gap (breaks SUP-009).
const FailedEventsDropped = true
