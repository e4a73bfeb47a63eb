//go:build !mutant_defers_only_on_stop_request

package mutant

// DefersOnlyOnStopRequest, when true (build tag mutant_defers_only_on_stop_request), makes the runtime break a requirement: defer containers run only in a stop sequence begun by a stop request; with termination reason Completed, Failed or DeadlineExceeded they are skipped (breaks DEFER-002).
const DefersOnlyOnStopRequest = false
