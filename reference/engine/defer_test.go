package engine_test

import (
	"os"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/store"
)

// Defer container scenarios (docs/spec/defer.md, the defer edges of docs/spec/ordering.md and
// the defer rules of docs/spec/stop.md), on runc. Every defer writes a marker line into the
// pod's emptyDir volume "data", so the order is asserted from inside the containers as well as
// from the events.

// deferMark is a shell command appending "NAME REASON" to /data/order.
func deferMark(name string) string {
	return `echo "` + name + ` $PODSPEC_TERMINATION_REASON" >> /data/order`
}

// appLoop runs until SIGTERM; it writes /data/payload at start, /data/app.ready once its trap
// is set, and /data/app.stopped when it is stopped.
const appLoop = `trap 'echo > /data/app.stopped; exit 0' TERM; echo payload-from-app > /data/payload; echo > /data/app.ready; while true; do sleep 0.05; done`

// sideLoop is a sidecar that runs until SIGTERM.
const sideLoop = `trap 'exit 0' TERM; while true; do sleep 0.05; done`

// waitFile waits until a file exists in the pod's volume.
func waitFile(tp *testPod, vol, name string, timeout time.Duration) {
	tp.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(tp.p.Path(store.VolumesDir, vol, name)); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	tp.t.Fatalf("no %s/%s after %s; events:\n%s", vol, name, timeout, tp.timeline())
}

// deferStatus returns the status of a defer container.
func deferStatus(tp *testPod, st *v1alpha1.PodStatus, name string) v1alpha1.ContainerStatus {
	tp.t.Helper()
	for _, c := range st.DeferContainerStatuses {
		if c.Name == name {
			return c
		}
	}
	tp.t.Fatalf("no defer container status %s in %+v", name, st.DeferContainerStatuses)
	return v1alpha1.ContainerStatus{}
}

// deferCondition returns the DeferCompleted condition.
func deferCondition(tp *testPod, st *v1alpha1.PodStatus) v1alpha1.PodCondition {
	tp.t.Helper()
	for _, c := range st.Conditions {
		if c.Type == v1alpha1.PodDeferCompleted {
			return c
		}
	}
	tp.t.Fatalf("no DeferCompleted condition in %+v", st.Conditions)
	return v1alpha1.PodCondition{}
}

func wantCondition(tp *testPod, st *v1alpha1.PodStatus, status v1alpha1.ConditionStatus, reason string) {
	tp.t.Helper()
	c := deferCondition(tp, st)
	if c.Status != status || c.Reason != reason {
		tp.t.Errorf("DeferCompleted = %s/%s (%s), want %s/%s (DEFER-012)", c.Status, c.Reason, c.Message, status, reason)
	}
}

func wantSkipped(tp *testPod, st *v1alpha1.PodStatus, name, reason string) {
	tp.t.Helper()
	c := deferStatus(tp, st, name)
	if c.State.Skipped == nil || c.State.Skipped.Reason != reason {
		tp.t.Errorf("defer %s state %+v, want skipped with reason %s; events:\n%s", name, c.State, reason, tp.timeline())
	}
	if n := len(tp.all(runtimev1.EventContainerCreated, name)); n != 0 {
		tp.t.Errorf("skipped defer %s was created %d times", name, n)
	}
	ev := tp.find(runtimev1.EventContainerSkipped, name)
	if ev.Reason != reason || ev.ContainerKind != "defer" {
		tp.t.Errorf("ContainerSkipped for %s: reason %s kind %s, want %s / defer", name, ev.Reason, ev.ContainerKind, reason)
	}
}

func wantTerminated(tp *testPod, st *v1alpha1.PodStatus, name, reason string) *v1alpha1.ContainerStateTerminated {
	tp.t.Helper()
	c := deferStatus(tp, st, name)
	if c.State.Terminated == nil || c.State.Terminated.Reason != reason {
		tp.t.Errorf("defer %s state %+v, want terminated with reason %s; events:\n%s", name, c.State, reason, tp.timeline())
		return &v1alpha1.ContainerStateTerminated{}
	}
	return c.State.Terminated
}

func TestDEFER002_HB009_HB013_HB014_DefersRunInListOrderAroundTheMainContainers(t *testing.T) {
	t.Parallel()
	mounts := `volumeMounts: [{name: data, mountPath: /data}]`
	state := `[ -e /data/app.stopped ] && s=app-stopped || s=app-running; `
	tp := startPod(t, `
metadata: {name: defer-order}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 300
  volumes: [{name: data, emptyDir: {}}]
  initContainers:
  - {name: side, image: IMAGE, restartPolicy: Always, command: [sh, -c, "`+sideLoop+`"]}
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "`+appLoop+`"], `+mounts+`}
  deferContainers:
  - {name: after1, image: IMAGE, command: [sh, -c, '`+state+`echo "after1 $s $(cat /data/payload) $PODSPEC_TERMINATION_REASON" >> /data/order; echo after1-log'], `+mounts+`}
  - {name: before1, phase: BeforeStop, image: IMAGE, command: [sh, -c, '`+state+`echo "before1 $s $PODSPEC_TERMINATION_REASON" >> /data/order; sleep 0.3'], `+mounts+`}
  - {name: after2, phase: AfterStop, image: IMAGE, command: [sh, -c, '`+state+`echo "after2 $s" >> /data/order'], `+mounts+`}
  - {name: before2, phase: BeforeStop, image: IMAGE, command: [sh, -c, '`+state+`echo "before2 $s" >> /data/order'], `+mounts+`}
`)
	waitFile(tp, "data", "app.ready", 180*time.Second)
	st := tp.status()
	for _, d := range st.DeferContainerStatuses {
		if d.State.Waiting == nil {
			t.Errorf("defer %s before the stop: %+v, want waiting (defers run only in the stop sequence)", d.Name, d.State)
		}
	}
	tp.stop(nil, false)
	st = tp.wait(240 * time.Second)
	want := "before1 app-running Stopped\nbefore2 app-running\nafter1 app-stopped payload-from-app Stopped\nafter2 app-stopped\n"
	if got := tp.volume("data", "order"); got != want {
		t.Errorf("markers written by the defers = %q, want %q (DEFER-002, DEFER-003, DEFER-016)", got, want)
	}
	ex := func(n string) runtimev1.Event { return tp.find(runtimev1.EventContainerExited, n) }
	started := func(n string) runtimev1.Event { return tp.find(runtimev1.EventContainerStarted, n) }
	tp.before(ex("before1"), started("before2")) // HB-010
	tp.before(ex("before2"), tp.find(runtimev1.EventSignalSent, "app"))
	tp.before(ex("app"), started("after1")) // HB-013
	tp.before(ex("after1"), started("after2"))
	tp.before(ex("after2"), tp.find(runtimev1.EventSignalSent, "side")) // HB-014
	for _, n := range []string{"before1", "before2", "after1", "after2"} {
		if k := started(n).ContainerKind; k != "defer" {
			t.Errorf("ContainerStarted of %s has kind %q, want defer", n, k)
		}
		if c := len(tp.all(runtimev1.EventContainerStarted, n)); c != 1 {
			t.Errorf("defer %s started %d times, want once (DEFER-004)", n, c)
		}
		wantTerminated(tp, st, n, "Completed")
	}
	wantCondition(tp, st, v1alpha1.ConditionTrue, "")
	if st.Phase != v1alpha1.PodSucceeded {
		t.Errorf("phase %s, want Succeeded", st.Phase)
	}
	if b, err := readLog(tp.p.LogPath("after1", 0)); err != nil || string(b) != "after1-log\n" {
		t.Errorf("log of after1 = %q (%v), want its output kept after the pod ended (GC-001)", b, err)
	}
}

func TestDEFER003_TerminationReasonInTheDefersEnvironment(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, extra, app, want string
		stop                   bool
	}{
		{name: "a stop request gives Stopped", app: appLoop, want: "Stopped", stop: true},
		{name: "the exit policy after a success gives Completed", app: "exit 0", want: "Completed"},
		{name: "the exit policy after a failure gives Failed", app: "exit 3", want: "Failed"},
		{name: "the active deadline gives DeadlineExceeded", extra: "activeDeadlineSeconds: 1", app: appLoop, want: "DeadlineExceeded"},
		{name: "a failed init container gives Failed", extra: `initContainers: [{name: setup, image: IMAGE, command: [sh, -c, "exit 1"]}]`, app: "exit 0", want: "Failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tp := startPod(t, `
metadata: {name: defer-reason}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 300
  `+c.extra+`
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "`+c.app+`"], volumeMounts: [{name: data, mountPath: /data}]}
  deferContainers:
  - {name: report, image: IMAGE, command: [sh, -c, '`+deferMark("report")+`'], volumeMounts: [{name: data, mountPath: /data}]}
`)
			if c.stop {
				waitFile(tp, "data", "app.ready", 180*time.Second)
				tp.stop(nil, false)
			}
			st := tp.wait(240 * time.Second)
			if got := tp.volume("data", "order"); got != "report "+c.want+"\n" {
				t.Errorf("defer saw %q, want PODSPEC_TERMINATION_REASON=%s; events:\n%s", got, c.want, tp.timeline())
			}
			if st.Reason != c.want {
				t.Errorf("status.reason %s, want %s", st.Reason, c.want)
			}
		})
	}
}

func TestDEFER005_HangingDeferIsKilledAtItsTimeoutAndTheNextOneRuns(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: defer-hang}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 300
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "exit 0"]}
  deferContainers:
  - {name: hang, image: IMAGE, timeoutSeconds: 1, command: [sh, -c, 'trap "" TERM; `+deferMark("hang")+`; sleep 100'], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: next, image: IMAGE, command: [sh, -c, '`+deferMark("next")+`'], volumeMounts: [{name: data, mountPath: /data}]}
`)
	st := tp.wait(240 * time.Second)
	if got := tp.volume("data", "order"); got != "hang Completed\nnext Completed\n" {
		t.Errorf("markers %q, want hang then next", got)
	}
	term := wantTerminated(tp, st, "hang", "Timeout")
	if term.Signal == nil || term.Signal.Name != "SIGKILL" || term.ExitCode != nil {
		t.Errorf("hang terminated %+v, want killed by SIGKILL with no exit code", term)
	}
	if d := tp.find(runtimev1.EventSignalSent, "hang").Time.Sub(term.StartedAt); d < time.Second || d > 2*time.Second {
		t.Errorf("SIGKILL sent %s after hang started, want 1 s (TIME-001, TIME-002)", d)
	}
	wantTerminated(tp, st, "next", "Completed")
	tp.before(tp.find(runtimev1.EventContainerExited, "hang"), tp.find(runtimev1.EventContainerStarted, "next"))
	wantCondition(tp, st, v1alpha1.ConditionFalse, "DeferFailed")
	if st.Phase != v1alpha1.PodSucceeded || *st.ExitCode != 0 || st.DecidedBy != "app" {
		t.Errorf("phase %s exitCode %d decidedBy %s, want Succeeded 0 app: a defer never changes the result (DEFER-011)", st.Phase, *st.ExitCode, st.DecidedBy)
	}
}

func TestDEFER005_STOP006_BeforeStopDeferIsKilledAtTheReservePoint(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: defer-reserve}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 300
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "`+appLoop+`"], volumeMounts: [{name: data, mountPath: /data}]}
  deferContainers:
  - {name: slow, phase: BeforeStop, image: IMAGE, command: [sh, -c, 'trap "" TERM; sleep 100']}
  - {name: late, phase: BeforeStop, image: IMAGE, command: [sh, -c, 'exit 0']}
`)
	waitFile(tp, "data", "app.ready", 180*time.Second)
	tp.stop(nil, false)
	tp.waitEvent(180*time.Second, "slow started", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventContainerStarted && ev.Container == "slow"
	})
	// A second request with a 4 s grace period moves the budget end, and the reserve point to
	// 2 s from now (STOP-012), whatever time creating the container took.
	asked := time.Now()
	tp.stop(ptr(int64(4)), false)
	st := tp.wait(240 * time.Second)
	wantTerminated(tp, st, "slow", "Timeout")
	if d := tp.find(runtimev1.EventSignalSent, "slow").Time.Sub(asked); d < 2*time.Second || d > 3*time.Second {
		t.Errorf("slow got SIGKILL %s after the 4 s request, want at the reserve point (4 s − 2 s)", d)
	}
	wantSkipped(tp, st, "late", "BudgetExhausted") // DEFER-006
	sig := tp.find(runtimev1.EventSignalSent, "app")
	// HB-009: the run of slow ends when it is killed at its limit, before app's stop signal.
	tp.before(tp.find(runtimev1.EventSignalSent, "slow"), sig)
	if sig.Signal == nil || sig.Signal.Name != "SIGTERM" {
		t.Errorf("app first got %+v, want its stop signal", sig.Signal)
	}
	// The engine signals the main containers a few state writes after the reserve point and
	// does not hold back the budget-end SIGKILL for that: allow that much (0.3 s) here.
	for _, k := range tp.all(runtimev1.EventSignalSent, "app") {
		if k.Signal != nil && k.Signal.Name == "SIGKILL" && k.Time.Sub(sig.Time) < 1700*time.Millisecond {
			t.Errorf("app got SIGKILL %s after its stop signal, want at least the minimum stop window (STOP-008)", k.Time.Sub(sig.Time))
		}
	}
	wantCondition(tp, st, v1alpha1.ConditionFalse, "DeferFailed")
}

func TestDEFER009_FailedDeferWithAbortSkipsTheLaterOnes(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: defer-abort}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 300
  volumes: [{name: data, emptyDir: {}}]
  initContainers:
  - {name: side, image: IMAGE, restartPolicy: Always, command: [sh, -c, "`+sideLoop+`"]}
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "exit 0"]}
  deferContainers:
  - {name: first, phase: BeforeStop, image: IMAGE, onFailure: Abort, command: [sh, -c, '`+deferMark("first")+`; exit 7'], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: second, image: IMAGE, command: [sh, -c, '`+deferMark("second")+`'], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: third, image: IMAGE, command: [sh, -c, '`+deferMark("third")+`'], volumeMounts: [{name: data, mountPath: /data}]}
`)
	st := tp.wait(240 * time.Second)
	if got := tp.volume("data", "order"); got != "first Completed\n" {
		t.Errorf("markers %q, want only the failing defer", got)
	}
	term := wantTerminated(tp, st, "first", "Error")
	if term.ExitCode == nil || *term.ExitCode != 7 {
		t.Errorf("first terminated %+v, want exit code 7", term)
	}
	wantSkipped(tp, st, "second", "Aborted")
	wantSkipped(tp, st, "third", "Aborted")
	// The rest of the stop sequence goes on: the sidecar is stopped by its stop signal.
	if sig := tp.find(runtimev1.EventSignalSent, "side"); sig.Signal == nil || sig.Signal.Name != "SIGTERM" {
		t.Errorf("sidecar got %+v, want its stop signal", sig.Signal)
	}
	wantCondition(tp, st, v1alpha1.ConditionFalse, "DeferFailed")
	if st.Phase != v1alpha1.PodSucceeded || *st.ExitCode != 0 || st.DecidedBy != "app" {
		t.Errorf("phase %s exitCode %d decidedBy %s, want Succeeded 0 app (DEFER-011)", st.Phase, *st.ExitCode, st.DecidedBy)
	}
}

func TestDEFER010_FailedDeferWithContinueRunsTheNextOne(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: defer-continue}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 300
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "exit 5"]}
  deferContainers:
  - {name: first, image: IMAGE, onFailure: Continue, command: [sh, -c, '`+deferMark("first")+`; exit 1'], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: second, image: IMAGE, command: [sh, -c, '`+deferMark("second")+`'], volumeMounts: [{name: data, mountPath: /data}]}
`)
	st := tp.wait(240 * time.Second)
	if got := tp.volume("data", "order"); got != "first Failed\nsecond Failed\n" {
		t.Errorf("markers %q, want both defers with reason Failed", got)
	}
	wantTerminated(tp, st, "first", "Error")
	wantTerminated(tp, st, "second", "Completed")
	wantCondition(tp, st, v1alpha1.ConditionFalse, "DeferFailed")
	if st.Phase != v1alpha1.PodFailed || *st.ExitCode != 5 || st.DecidedBy != "app" {
		t.Errorf("phase %s exitCode %d decidedBy %s, want Failed 5 app (DEFER-011)", st.Phase, *st.ExitCode, st.DecidedBy)
	}
}

func TestDEFER008_OnFailureRetriesAfterTheBackoffInsideTheLimit(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: defer-retry}
spec:
  restartPolicy: Never
  restartBackoff: {initialSeconds: 0.3}
  terminationGracePeriodSeconds: 300
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "exit 0"]}
  deferContainers:
  - name: flaky
    image: IMAGE
    restartPolicy: OnFailure
    timeoutSeconds: 200
    command: [sh, -c, 'echo try >> /data/flaky; [ $(wc -l < /data/flaky) -ge 2 ]']
    volumeMounts: [{name: data, mountPath: /data}]
`)
	st := tp.wait(240 * time.Second)
	if got := tp.volume("data", "flaky"); got != "try\ntry\n" {
		t.Errorf("flaky ran %q, want two attempts", got)
	}
	c := deferStatus(tp, st, "flaky")
	if c.RestartCount != 1 || c.State.Terminated == nil || c.State.Terminated.Reason != "Completed" {
		t.Errorf("flaky %+v, want one retry that completed", c)
	}
	if c.LastState.Terminated == nil || c.LastState.Terminated.ExitCode == nil || *c.LastState.Terminated.ExitCode != 1 {
		t.Errorf("flaky lastState %+v, want the failed attempt (exit 1)", c.LastState)
	}
	ex := tp.all(runtimev1.EventContainerExited, "flaky")
	starts := tp.all(runtimev1.EventContainerStarted, "flaky")
	if len(ex) != 2 || len(starts) != 2 {
		t.Fatalf("flaky: %d starts %d exits; events:\n%s", len(starts), len(ex), tp.timeline())
	}
	if gap := starts[1].Time.Sub(ex[0].Time); gap < 300*time.Millisecond {
		t.Errorf("retry %s after the failure, want the pod's back-off (0.3 s) first", gap)
	}
	wantCondition(tp, st, v1alpha1.ConditionTrue, "")
}

func TestDEFER008_NoRetryWhenTheBackoffEndsAfterTheLimit(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: defer-noretry}
spec:
  restartPolicy: Never
  restartBackoff: {initialSeconds: 5}
  terminationGracePeriodSeconds: 300
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "exit 0"]}
  deferContainers:
  - {name: nolimit, image: IMAGE, restartPolicy: OnFailure, timeoutSeconds: 2, command: [sh, -c, 'echo try >> /data/nolimit; exit 1'], volumeMounts: [{name: data, mountPath: /data}]}
`)
	st := tp.wait(240 * time.Second)
	if got := tp.volume("data", "nolimit"); got != "try\n" {
		t.Errorf("nolimit ran %q, want one attempt: a retry after 5 s of back-off would start after its 2 s limit", got)
	}
	if n := len(tp.all(runtimev1.EventContainerRestarting, "nolimit")); n != 0 {
		t.Errorf("%d ContainerRestarting events, want none", n)
	}
	wantTerminated(tp, st, "nolimit", "Error")
	wantCondition(tp, st, v1alpha1.ConditionFalse, "DeferFailed")
}

func TestDEFER006_STOP010_BudgetRunsOutInTheMiddleOfTheDefers(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: defer-budget}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 300
  volumes: [{name: data, emptyDir: {}}]
  initContainers:
  - {name: side, image: IMAGE, restartPolicy: Always, command: [sh, -c, "`+sideLoop+`"]}
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "`+appLoop+`"], volumeMounts: [{name: data, mountPath: /data}]}
  deferContainers:
  - {name: quick, image: IMAGE, command: [sh, -c, '`+deferMark("quick")+`'], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: long, image: IMAGE, command: [sh, -c, 'trap "" TERM; `+deferMark("long")+`; sleep 100'], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: never1, image: IMAGE, command: [sh, -c, '`+deferMark("never1")+`'], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: never2, phase: AfterStop, image: IMAGE, command: [sh, -c, '`+deferMark("never2")+`'], volumeMounts: [{name: data, mountPath: /data}]}
`)
	waitFile(tp, "data", "app.ready", 180*time.Second)
	tp.stop(nil, false)
	tp.waitEvent(180*time.Second, "long started", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventContainerStarted && ev.Container == "long"
	})
	// The budget runs out 3 s from now, in the middle of the defers (STOP-012 moves its end).
	asked := time.Now()
	tp.stop(ptr(int64(3)), false)
	st := tp.wait(240 * time.Second)
	if got := tp.volume("data", "order"); got != "quick Stopped\nlong Stopped\n" {
		t.Errorf("markers %q, want quick and long only", got)
	}
	wantTerminated(tp, st, "quick", "Completed")
	term := wantTerminated(tp, st, "long", "Timeout")
	if term.Signal == nil || term.Signal.Name != "SIGKILL" {
		t.Errorf("long %+v, want SIGKILL at the budget end", term)
	}
	if d := tp.find(runtimev1.EventSignalSent, "long").Time.Sub(asked); d < 3*time.Second || d > 4*time.Second {
		t.Errorf("long got SIGKILL %s after the 3 s request, want at the budget end", d)
	}
	wantSkipped(tp, st, "never1", "BudgetExhausted")
	wantSkipped(tp, st, "never2", "BudgetExhausted")
	// The sidecar is still stopped: SIGKILL at the budget end (STOP-010).
	side := tp.container("side")
	if side.State.Terminated == nil {
		t.Errorf("sidecar %+v, want terminated", side.State)
	}
	if last := tp.events()[len(tp.events())-1]; last.Type != runtimev1.EventPodFinished {
		t.Errorf("last event %s, want PodFinished", last.Type)
	}
	wantCondition(tp, st, v1alpha1.ConditionFalse, "DeferFailed")
	if st.Phase != v1alpha1.PodSucceeded {
		t.Errorf("phase %s, want Succeeded (the app stopped on SIGTERM with exit 0)", st.Phase)
	}
}

func TestFORCE002_FORCE004_ForcedStopDuringADeferKillsItAndSkipsTheRest(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: defer-force-during}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 300
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "exit 0"]}
  deferContainers:
  - {name: busy, image: IMAGE, command: [sh, -c, 'trap "" TERM; `+deferMark("busy")+`; sleep 100'], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: after, image: IMAGE, command: [sh, -c, '`+deferMark("after")+`'], volumeMounts: [{name: data, mountPath: /data}]}
`)
	tp.waitEvent(180*time.Second, "busy started", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventContainerStarted && ev.Container == "busy"
	})
	waitFile(tp, "data", "order", 10*time.Second)
	forcedAt := time.Now()
	tp.stop(nil, true)
	st := tp.wait(240 * time.Second)
	term := wantTerminated(tp, st, "busy", "Forced")
	if term.Signal == nil || term.Signal.Name != "SIGKILL" {
		t.Errorf("busy %+v, want SIGKILL", term)
	}
	if d := tp.find(runtimev1.EventSignalSent, "busy").Time.Sub(forcedAt); d > time.Second {
		t.Errorf("busy got SIGKILL %s after the forced stop, want at once (FORCE-005)", d)
	}
	wantSkipped(tp, st, "after", "Forced")
	if got := tp.volume("data", "order"); got != "busy Completed\n" {
		t.Errorf("markers %q, want only busy", got)
	}
	wantCondition(tp, st, v1alpha1.ConditionFalse, "DeferFailed")
	if st.Reason != "Completed" || st.Phase != v1alpha1.PodSucceeded {
		t.Errorf("reason %s phase %s, want the sequence's reason Completed kept and Succeeded", st.Reason, st.Phase)
	}
}

func TestFORCE003_FORCE004_ForcedStopBeforeTheDefersSkipsThemAll(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: defer-force-before}
spec:
  restartPolicy: Never
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "`+appLoop+`"], volumeMounts: [{name: data, mountPath: /data}]}
  deferContainers:
  - {name: before, phase: BeforeStop, image: IMAGE, command: [sh, -c, '`+deferMark("before")+`'], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: after, image: IMAGE, command: [sh, -c, '`+deferMark("after")+`'], volumeMounts: [{name: data, mountPath: /data}]}
`)
	waitFile(tp, "data", "app.ready", 180*time.Second)
	tp.stop(nil, true)
	st := tp.wait(240 * time.Second)
	wantSkipped(tp, st, "before", "Forced")
	wantSkipped(tp, st, "after", "Forced")
	if got := tp.volume("data", "order"); got != "" {
		t.Errorf("a defer ran after a forced stop: %q (FORCE-003)", got)
	}
	wantCondition(tp, st, v1alpha1.ConditionFalse, "DeferSkipped")
	if st.Phase != v1alpha1.PodFailed || st.Reason != "Forced" {
		t.Errorf("phase %s reason %s, want Failed / Forced", st.Phase, st.Reason)
	}
}

func TestDEFER011_DeferFailuresLeaveThePodResultAlone(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, app string
		phase     v1alpha1.PodPhase
		code      int32
	}{
		{name: "a succeeded pod stays Succeeded with exit code 0", app: "exit 0", phase: v1alpha1.PodSucceeded, code: 0},
		{name: "a failed pod keeps its own exit code", app: "exit 9", phase: v1alpha1.PodFailed, code: 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tp := startPod(t, `
metadata: {name: defer-result}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 300
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "`+c.app+`"]}
  deferContainers:
  - {name: bad1, image: IMAGE, command: [sh, -c, "exit 42"]}
  - {name: bad2, phase: BeforeStop, image: IMAGE, command: [sh, -c, "exit 43"]}
`)
			st := tp.wait(240 * time.Second)
			if st.Phase != c.phase || st.ExitCode == nil || *st.ExitCode != c.code || st.DecidedBy != "app" {
				t.Errorf("phase %s exitCode %v decidedBy %s, want %s %d app", st.Phase, st.ExitCode, st.DecidedBy, c.phase, c.code)
			}
			wantTerminated(tp, st, "bad1", "Error")
			wantTerminated(tp, st, "bad2", "Error")
			wantCondition(tp, st, v1alpha1.ConditionFalse, "DeferFailed")
			if n := len(tp.all(runtimev1.EventContainerStarted, "app")); n != 1 {
				t.Errorf("app started %d times: a defer failure restarted it", n)
			}
			if !strings.Contains(deferCondition(tp, st).Message, "bad1") {
				t.Errorf("DeferCompleted message %q does not name the failed defer", deferCondition(tp, st).Message)
			}
		})
	}
}

func TestDEFER007_DeferThatCannotStartFailsAndTheNextOneRuns(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: defer-nostart}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 300
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "exit 0"]}
  deferContainers:
  - {name: broken, image: IMAGE, command: [/no/such/program]}
  - {name: next, image: IMAGE, command: [sh, -c, '`+deferMark("next")+`'], volumeMounts: [{name: data, mountPath: /data}]}
`)
	st := tp.wait(240 * time.Second)
	term := wantTerminated(tp, st, "broken", "StartError")
	if term.ExitCode != nil || term.Signal != nil {
		t.Errorf("broken %+v, want neither exitCode nor signal: its process never ran", term)
	}
	if got := tp.volume("data", "order"); got != "next Completed\n" {
		t.Errorf("markers %q, want the next defer to run", got)
	}
	wantCondition(tp, st, v1alpha1.ConditionFalse, "DeferFailed")
	if st.Phase != v1alpha1.PodSucceeded {
		t.Errorf("phase %s, want Succeeded (DEFER-011)", st.Phase)
	}
}

func TestSTOP012_ShorterGraceDuringADeferMovesItsLimit(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: defer-shorter}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 300
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "exit 0"]}
  deferContainers:
  - {name: busy, image: IMAGE, command: [sh, -c, 'trap "" TERM; `+deferMark("busy")+`; sleep 100'], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: later, image: IMAGE, command: [sh, -c, '`+deferMark("later")+`'], volumeMounts: [{name: data, mountPath: /data}]}
`)
	tp.waitEvent(180*time.Second, "busy started", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventContainerStarted && ev.Container == "busy"
	})
	asked := time.Now()
	tp.stop(ptr(int64(2)), false)
	st := tp.wait(240 * time.Second)
	wantTerminated(tp, st, "busy", "Timeout")
	if d := tp.find(runtimev1.EventSignalSent, "busy").Time.Sub(asked); d < 2*time.Second || d > 3*time.Second {
		t.Errorf("busy got SIGKILL %s after the 2 s stop request, want at the new budget end", d)
	}
	wantSkipped(tp, st, "later", "BudgetExhausted")
	if st.Reason != "Completed" {
		t.Errorf("reason %s, want Completed kept from the sequence that began first", st.Reason)
	}
}
