package engine

import (
	"podspec.dev/podspec/api/v1alpha1"
)

// exitFacts is what the terminated reason of an instance whose process ran depends on
// (STAT-006). The rows of the table for a container that never ran (StartError when it could
// not be started, DependencyFailed) are recorded where the start fails, not here.
type exitFacts struct {
	// kind is the container's kind (KindInit, KindSidecar, KindMain, KindDefer).
	kind string
	// status and statusMsg are the reason and message of the wait status as recorded
	// (fillExit): ExitStatusLost, OOMKilled, Completed, Error or Signaled.
	status, statusMsg string
	// stopReason is the reason the runtime gave when it first stopped the instance ("" when it
	// never did): for a main, init or sidecar container the reason of its stop signal
	// (Stopped, StoppedByPolicy, DeadlineExceeded, Forced); for a defer the reason of its
	// SIGKILL (Timeout, Forced), since a defer gets no stop signal first.
	stopReason string
	// forced says the pod's stop is forced (from the start or escalated) when the exit is
	// recorded.
	forced bool
	// killReason and killMsg are set when the runtime killed the instance outside a stop
	// (failed liveness or startup probe: Unhealthy; failed postStart hook: StartError).
	killReason, killMsg string
}

// terminatedReason returns state.terminated.reason and message of an instance: the first
// reason of the STAT-006 table whose condition holds.
//
//   - ExitStatusLost: the status was lost and the runtime never stopped the instance. An
//     instance the runtime had stopped gets its stop reason instead (docs/runtime.md,
//     adoption), and a forced stop that never signalled the instance did not kill it.
//   - Forced: the forced stop killed it: its SIGKILL was the forced stop's, or, for a non-defer
//     container, its stop signal was sent before the stop became forced (the forced stop's
//     SIGKILL follows at once). A defer killed at its limit (Timeout) before the stop became
//     forced was killed by that limit.
//   - OOMKilled, then the stop reason (Timeout, DeadlineExceeded, StoppedByPolicy, Stopped),
//     then the kill reason (Unhealthy, StartError), then the wait status's own reason.
//
// The message is the kill's when the runtime killed the instance outside a stop, else the
// wait status's.
func terminatedReason(f exitFacts) (reason, msg string) {
	msg = f.statusMsg
	if f.killMsg != "" {
		msg = f.killMsg
	}
	switch {
	case f.status == ReasonExitStatusLost && f.stopReason == "":
		return ReasonExitStatusLost, msg
	case f.stopReason == v1alpha1.ReasonForced,
		f.forced && f.stopReason != "" && f.kind != KindDefer:
		return v1alpha1.ReasonForced, msg
	case f.status == v1alpha1.ReasonOOMKilled:
		return f.status, msg
	case f.stopReason != "":
		return f.stopReason, msg
	case f.killReason != "":
		return f.killReason, msg
	}
	return f.status, msg
}

// countsAsFailure reports whether the end of an instance whose process ran, with exit code
// code (nil: none), counts as a failure. An instance the runtime stopped (stopReason set: it
// was sent its stop signal or SIGKILL, in a stop sequence or a forced stop) fails only with a
// non-zero exit code (EXIT-013); one killed after a failed probe or postStart hook and not
// stopped fails (HOOK-008..010); any other end fails with a non-zero exit code, a signal or
// neither (EXIT-012). An instance that ended on its own during a forced stop, before the
// forced stop signalled it, was not stopped by the runtime (docs/spec/terminology.md), as
// terminatedReason says too.
func countsAsFailure(f exitFacts, code *int32) bool {
	switch {
	case f.stopReason != "":
		return code != nil && *code != 0
	case f.killReason != "":
		return true
	}
	return code == nil || *code != 0
}
