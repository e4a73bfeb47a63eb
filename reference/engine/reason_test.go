package engine

import (
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
)

// TestSTAT006_TerminatedReasonIsTheFirstRowOfTheTableThatHolds runs every row of the STAT-006
// table through terminatedReason for each kind of container. Inputs that only one kind meets
// in a run (Timeout for defers; stop signals, probes and hooks for the others) are decided the
// same for every kind; the one kind-dependent case is a stop that becomes forced after the
// runtime stopped the instance. StartError for a container that could not be started and
// DependencyFailed are recorded where the start fails: no process ran, so there is no exit.
func TestSTAT006_TerminatedReasonIsTheFirstRowOfTheTableThatHolds(t *testing.T) {
	const (
		lostMsg  = "status lost"
		probeMsg = "liveness probe failed"
		hookMsg  = "postStart hook failed"
	)
	lost := exitFacts{status: ReasonExitStatusLost, statusMsg: lostMsg}
	exit0 := exitFacts{status: v1alpha1.ReasonCompleted}
	exit3 := exitFacts{status: v1alpha1.ReasonError}
	killed := exitFacts{status: v1alpha1.ReasonSignaled}
	oom := exitFacts{status: v1alpha1.ReasonOOMKilled}
	with := func(f exitFacts, stop string, forced bool) exitFacts {
		f.stopReason, f.forced = stop, forced
		return f
	}
	probeKilled := func(f exitFacts, reason, msg string) exitFacts {
		f.killReason, f.killMsg = reason, msg
		return f
	}
	cases := []struct {
		name string
		f    exitFacts
		// want, and wantDefer for a defer when it differs; msg is the expected message.
		want, wantDefer, msg string
	}{
		{name: "a lost status of an instance the runtime never stopped is ExitStatusLost",
			f: lost, want: ReasonExitStatusLost, msg: lostMsg},
		{name: "a lost status during a forced stop that never signalled the instance is ExitStatusLost",
			f: with(lost, "", true), want: ReasonExitStatusLost, msg: lostMsg},
		{name: "a lost status after a probe kill is ExitStatusLost, with the kill's message",
			f: probeKilled(lost, ReasonUnhealthy, probeMsg), want: ReasonExitStatusLost, msg: probeMsg},
		{name: "a lost status of an instance the stop sequence stopped gets the stop reason",
			f: with(lost, v1alpha1.ReasonStopped, false), want: v1alpha1.ReasonStopped, msg: lostMsg},
		{name: "a lost status of an instance the forced stop killed is Forced",
			f: with(lost, v1alpha1.ReasonForced, true), want: v1alpha1.ReasonForced, msg: lostMsg},

		{name: "the forced stop's SIGKILL gives Forced",
			f: with(killed, v1alpha1.ReasonForced, true), want: v1alpha1.ReasonForced},
		{name: "Forced comes before OOMKilled",
			f: with(oom, v1alpha1.ReasonForced, true), want: v1alpha1.ReasonForced},
		{name: "Forced comes before a probe kill",
			f: probeKilled(with(killed, v1alpha1.ReasonForced, true), ReasonUnhealthy, probeMsg), want: v1alpha1.ReasonForced, msg: probeMsg},
		// A non-defer's stop reason is its stop signal's, and the forced stop's SIGKILL follows;
		// a defer's is that of the SIGKILL it got (it gets no stop signal), which killed it.
		{name: "a stop that became forced after the stop signal is Forced",
			f: with(exit0, v1alpha1.ReasonStopped, true), want: v1alpha1.ReasonForced, wantDefer: v1alpha1.ReasonStopped},
		{name: "a defer killed at its limit before the stop became forced is Timeout",
			f: with(killed, v1alpha1.ReasonTimeout, true), want: v1alpha1.ReasonForced, wantDefer: v1alpha1.ReasonTimeout},
		{name: "an instance that exited on its own during a forced stop keeps its own reason",
			f: with(exit0, "", true), want: v1alpha1.ReasonCompleted},
		{name: "a probe kill that ended before the forced stop signalled the instance is Unhealthy",
			f: probeKilled(with(killed, "", true), ReasonUnhealthy, probeMsg), want: ReasonUnhealthy, msg: probeMsg},

		{name: "an OOM kill is OOMKilled",
			f: oom, want: v1alpha1.ReasonOOMKilled},
		{name: "OOMKilled comes before the stop reason",
			f: with(oom, v1alpha1.ReasonStoppedByPolicy, false), want: v1alpha1.ReasonOOMKilled},
		{name: "OOMKilled comes before Timeout",
			f: with(oom, v1alpha1.ReasonTimeout, false), want: v1alpha1.ReasonOOMKilled},
		{name: "OOMKilled comes before a probe kill, with the kill's message",
			f: probeKilled(oom, ReasonUnhealthy, probeMsg), want: v1alpha1.ReasonOOMKilled, msg: probeMsg},

		{name: "a kill at the limit is Timeout",
			f: with(killed, v1alpha1.ReasonTimeout, false), want: v1alpha1.ReasonTimeout},
		{name: "an exit 0 as the limit's kill lands is Timeout",
			f: with(exit0, v1alpha1.ReasonTimeout, false), want: v1alpha1.ReasonTimeout},

		{name: "a stop in a DeadlineExceeded sequence is DeadlineExceeded",
			f: with(killed, v1alpha1.ReasonDeadlineExceeded, false), want: v1alpha1.ReasonDeadlineExceeded},
		{name: "a stop by the exit policy, exit 0 on the stop signal, is StoppedByPolicy",
			f: with(exit0, v1alpha1.ReasonStoppedByPolicy, false), want: v1alpha1.ReasonStoppedByPolicy},
		{name: "a stop request, exit 3 on the stop signal, is Stopped",
			f: with(exit3, v1alpha1.ReasonStopped, false), want: v1alpha1.ReasonStopped},
		{name: "the stop reason comes before a probe kill",
			f: probeKilled(with(killed, v1alpha1.ReasonStopped, false), ReasonUnhealthy, probeMsg), want: v1alpha1.ReasonStopped, msg: probeMsg},

		{name: "a kill after a failed probe is Unhealthy, even when the process exits 0",
			f: probeKilled(exit0, ReasonUnhealthy, probeMsg), want: ReasonUnhealthy, msg: probeMsg},
		{name: "a kill after a failed postStart hook is StartError",
			f: probeKilled(killed, v1alpha1.ReasonStartError, hookMsg), want: v1alpha1.ReasonStartError, msg: hookMsg},

		{name: "an exit with code 0 is Completed", f: exit0, want: v1alpha1.ReasonCompleted},
		{name: "an exit with a non-zero code is Error", f: exit3, want: v1alpha1.ReasonError},
		{name: "a death by signal is Signaled", f: killed, want: v1alpha1.ReasonSignaled},
	}
	for _, kind := range []string{KindInit, KindSidecar, KindMain, KindDefer} {
		for _, c := range cases {
			f := c.f
			f.kind = kind
			want := c.want
			if kind == KindDefer && c.wantDefer != "" {
				want = c.wantDefer
			}
			reason, msg := terminatedReason(f)
			if reason != want || msg != c.msg {
				t.Errorf("%s (%s): got %q %q, want %q %q", c.name, kind, reason, msg, want, c.msg)
			}
		}
	}
}

// TestEXIT012_EXIT013_FailureFollowsWhetherTheRuntimeStoppedTheInstance runs the ends of an
// instance through terminatedReason and countsAsFailure together: an instance the runtime
// stopped (its stop reason is set) fails only with a non-zero exit code (EXIT-013); any other
// end, including one on its own during a forced stop that had not signalled it yet, fails
// with a non-zero exit code, a signal or neither (EXIT-012), and keeps its own reason.
func TestEXIT012_EXIT013_FailureFollowsWhetherTheRuntimeStoppedTheInstance(t *testing.T) {
	code := func(c int32) *int32 { return &c }
	cases := []struct {
		name    string
		f       exitFacts
		code    *int32
		reason  string
		failure bool
	}{
		{name: "an exit 0 on its own is a success",
			f: exitFacts{status: v1alpha1.ReasonCompleted}, code: code(0), reason: v1alpha1.ReasonCompleted},
		{name: "an exit 3 on its own is a failure",
			f: exitFacts{status: v1alpha1.ReasonError}, code: code(3), reason: v1alpha1.ReasonError, failure: true},
		{name: "a death by a signal the runtime did not send is a failure",
			f: exitFacts{status: v1alpha1.ReasonSignaled}, reason: v1alpha1.ReasonSignaled, failure: true},
		{name: "a lost status of an instance the runtime never stopped is a failure",
			f: exitFacts{status: ReasonExitStatusLost}, reason: ReasonExitStatusLost, failure: true},

		{name: "an exit 0 on the stop signal is a success",
			f: exitFacts{status: v1alpha1.ReasonCompleted, stopReason: v1alpha1.ReasonStopped}, code: code(0), reason: v1alpha1.ReasonStopped},
		{name: "an exit 3 on the stop signal is a failure",
			f: exitFacts{status: v1alpha1.ReasonError, stopReason: v1alpha1.ReasonStoppedByPolicy}, code: code(3), reason: v1alpha1.ReasonStoppedByPolicy, failure: true},
		{name: "a death by the stop signal is a success",
			f: exitFacts{status: v1alpha1.ReasonSignaled, stopReason: v1alpha1.ReasonStopped}, reason: v1alpha1.ReasonStopped},
		{name: "a death by the budget end's SIGKILL in a DeadlineExceeded sequence is a success",
			f: exitFacts{status: v1alpha1.ReasonSignaled, stopReason: v1alpha1.ReasonDeadlineExceeded}, reason: v1alpha1.ReasonDeadlineExceeded},
		{name: "a lost status of an instance the stop sequence stopped is a success",
			f: exitFacts{status: ReasonExitStatusLost, stopReason: v1alpha1.ReasonStopped}, reason: v1alpha1.ReasonStopped},

		{name: "a death by the forced stop's SIGKILL is a success",
			f: exitFacts{status: v1alpha1.ReasonSignaled, stopReason: v1alpha1.ReasonForced, forced: true}, reason: v1alpha1.ReasonForced},
		{name: "an exit 3 on a stop signal, the stop then forced, is a failure",
			f: exitFacts{status: v1alpha1.ReasonError, stopReason: v1alpha1.ReasonStopped, forced: true}, code: code(3), reason: v1alpha1.ReasonForced, failure: true},
		{name: "a lost status of an instance the forced stop killed is a success",
			f: exitFacts{status: ReasonExitStatusLost, stopReason: v1alpha1.ReasonForced, forced: true}, reason: v1alpha1.ReasonForced},
		{name: "an exit 0 on its own during a forced stop that had not signalled it is a success",
			f: exitFacts{status: v1alpha1.ReasonCompleted, forced: true}, code: code(0), reason: v1alpha1.ReasonCompleted},
		{name: "an exit 3 on its own during a forced stop that had not signalled it is a failure",
			f: exitFacts{status: v1alpha1.ReasonError, forced: true}, code: code(3), reason: v1alpha1.ReasonError, failure: true},
		{name: "a death by its own signal during a forced stop that had not signalled it is a failure",
			f: exitFacts{status: v1alpha1.ReasonSignaled, forced: true}, reason: v1alpha1.ReasonSignaled, failure: true},
		{name: "a lost status during a forced stop that had not signalled the instance is a failure",
			f: exitFacts{status: ReasonExitStatusLost, forced: true}, reason: ReasonExitStatusLost, failure: true},

		{name: "an exit 0 after the kill of a failed probe is a failure",
			f: exitFacts{status: v1alpha1.ReasonCompleted, killReason: ReasonUnhealthy}, code: code(0), reason: ReasonUnhealthy, failure: true},
		{name: "a probe kill overtaken by the stop signal is a success when it dies of a signal",
			f: exitFacts{status: v1alpha1.ReasonSignaled, stopReason: v1alpha1.ReasonStopped, killReason: ReasonUnhealthy}, reason: v1alpha1.ReasonStopped},
		{name: "a postStart kill ending during a forced stop that had not signalled it is a failure",
			f: exitFacts{status: v1alpha1.ReasonSignaled, forced: true, killReason: v1alpha1.ReasonStartError}, reason: v1alpha1.ReasonStartError, failure: true},
	}
	for _, kind := range []string{KindInit, KindSidecar, KindMain} {
		for _, c := range cases {
			f := c.f
			f.kind = kind
			reason, _ := terminatedReason(f)
			failure := countsAsFailure(f, c.code)
			if reason != c.reason || failure != c.failure {
				t.Errorf("%s (%s): reason %q, failure %v; want %q, %v", c.name, kind, reason, failure, c.reason, c.failure)
			}
		}
	}
}
