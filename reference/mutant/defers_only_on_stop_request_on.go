//go:build mutant_defers_only_on_stop_request

package mutant

// DefersOnlyOnStopRequest is true in the mutant build mutant_defers_only_on_stop_request: defer containers run only in a stop sequence begun by a stop request; with termination reason Completed, Failed or DeadlineExceeded they are skipped (breaks DEFER-002).
const DefersOnlyOnStopRequest = true
