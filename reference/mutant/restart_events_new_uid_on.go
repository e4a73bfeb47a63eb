//go:build mutant_restart_events_new_uid

package mutant

// RestartEventsNewUID is true in the mutant build mutant_restart_events_new_uid: the events of a restarted container's instance carry a UID of its own, as a runtime that makes a new sandbox for every restart would, instead of the pod's (breaks ID-005).
const RestartEventsNewUID = true
