package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
)

// The stop sequence's timed actions must not wait for a step that blocks in the OCI runtime:
// on a loaded host `runc create` and `runc start` took 2–3.7 s, and a defer being created or
// started then held back the main containers' stop signals at the reserve point and the
// SIGKILL at the budget end until it returned (random scenarios, seeds 1000, 1100, 1114:
// docs/conformance.md). These tests hold a defer's creation or start across the moment and
// check that the action comes on time while it is held.

// callGate holds the first CreateInstance of a container (or, with start, the StartInstance of
// its instance number instance) until released.
type callGate struct {
	*backend.Backend
	container string
	start     bool
	instance  int // the instance whose start is held
	*firstCall
}

func (g *callGate) CreateInstance(ctx context.Context, pod *engine.PodInfo, sb json.RawMessage, req *engine.InstanceRequest) (int, error) {
	if !g.start && req.Container.Name == g.container {
		g.wait()
	}
	return g.Backend.CreateInstance(ctx, pod, sb, req)
}

func (g *callGate) StartInstance(ctx context.Context, id string) error {
	if g.start && strings.HasSuffix(id, fmt.Sprintf("-%s-%d", g.container, g.instance)) {
		g.wait()
	}
	return g.Backend.StartInstance(ctx, id)
}

// reactionBound is how late after its moment a timed action may come on this loaded machine
// (the conformance model's reaction tolerance without the slow factor).
const reactionBound = 3 * time.Second

// startBlockedStep runs the pod of these tests with a grace period of grace seconds (the reserve
// point is 2 s before its end), its defer cleanup in phase, stops it once app runs, and returns
// once cleanup's creation (or, with start, its start) is held.
func startBlockedStep(t *testing.T, name, phase string, start bool, grace int) (*testPod, *callGate) {
	t.Helper()
	g := &callGate{container: "cleanup", start: start, firstCall: newFirstCall()}
	tp := startPodWith(t, `
metadata: {name: `+name+`}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: `+fmt.Sprint(grace)+`
  volumes: [{name: data, emptyDir: {}}]
  initContainers:
  - {name: side, image: IMAGE, restartPolicy: Always, command: [sh, -c, 'trap "" TERM; while true; do sleep 0.05; done']}
  containers:
  - name: app
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, 'trap "exit 0" TERM; touch /data/app.ready; while true; do sleep 0.05; done']
  deferContainers:
  - {name: cleanup, phase: `+phase+`, image: IMAGE, command: [sh, -c, 'sleep 100']}
`, func(b *backend.Backend) engine.Backend { g.Backend = b; return g })
	t.Cleanup(g.open) // before the pod's cleanup, whose forced stop waits for the held call
	waitFile(tp, "data", "app.ready", 180*time.Second)
	tp.stop(nil, false)
	select {
	case <-g.entered:
	case <-time.After(60 * time.Second):
		t.Fatalf("cleanup's creation or start was never called; events:\n%s", tp.timeline())
	}
	return tp, g
}

func TestSTOP006_STOP010_TimedActionsComeWhileADeferIsBeingCreatedOrStarted(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, phase string
		start       bool // hold the defer's start, else its creation
		// The awaited signal: to whom, which, and its moment after PodTerminating.
		to, sig string
		at      time.Duration
		grace   int
	}{
		// grace 4 s: the reserve point is 2 s into the stop, the budget end 4 s. (A BeforeStop
		// defer's start held across the reserve point is killed there, HB-009:
		// TestHB009_STOP006_ABeforeStopDeferStillStartingAtTheReservePointIsKilledThere.)
		{name: "reserve-while-creating", phase: "BeforeStop", to: "app", sig: "SIGTERM", at: 2 * time.Second, grace: 4},
		{name: "budget-end-while-creating", phase: "AfterStop", to: "side", sig: "SIGKILL", at: 4 * time.Second, grace: 4},
		// grace 10 s: cleanup's creation, after app's exit, must end before the budget end for
		// its start to be called; at a load average of 40 it took 5 s.
		{name: "budget-end-while-starting", phase: "AfterStop", start: true, to: "side", sig: "SIGKILL", at: 10 * time.Second, grace: 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tp, g := startBlockedStep(t, c.name, c.phase, c.start, c.grace)
			want := func(ev runtimev1.Event) bool {
				return ev.Type == runtimev1.EventSignalSent && ev.Container == c.to && ev.Signal != nil && ev.Signal.Name == c.sig
			}
			moment := tp.find(runtimev1.EventPodTerminating, "").Time.Add(c.at)
			got := tp.waitEvent(time.Until(moment)+reactionBound, fmt.Sprintf("%s to %s while cleanup's call is held", c.sig, c.to), want)
			if got.Time.Before(moment) {
				t.Errorf("%s to %s at %s, before its moment %s (TIME-001)", c.sig, c.to, got.Time, moment)
			}
			g.open()
			tp.wait(120 * time.Second)
			if c.to == "app" {
				if a := tp.container("app").State.Terminated; a == nil || a.ExitCode == nil || *a.ExitCode != 0 {
					t.Errorf("app ended %+v, want exit code 0 on its stop signal; events:\n%s", a, tp.timeline())
				}
				if n := len(signalsTo(tp, "app", "SIGKILL")); n != 0 {
					t.Errorf("app was sent SIGKILL %d times, want none (its stop signal came at the reserve point); events:\n%s", n, tp.timeline())
				}
			}
			if n := len(tp.all(runtimev1.EventContainerStarted, "cleanup")); c.phase == "BeforeStop" && n != 0 {
				t.Errorf("cleanup, created after the reserve point, started %d times, want never (DEFER-006); events:\n%s", n, tp.timeline())
			}
		})
	}
}

// A BeforeStop defer whose start is under way at the reserve point (its start called before,
// returning after) is killed there, its start still under way: its run ends with the kill,
// recorded with reason Timeout (DEFER-005, STAT-006), before the main containers' stop signals
// (HB-009), which come at the reserve point however long the start lasts (STOP-006), also past
// the budget end (seed 1114, a 3.7 s `runc start`: docs/conformance.md). Before, the stop
// sequence waited for the start: the main containers got SIGKILL at the budget end without their
// stop signal when it lasted that long.
func TestHB009_STOP006_ABeforeStopDeferStillStartingAtTheReservePointIsKilledThere(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		hold time.Duration // how long after the reserve point cleanup's start is held
	}{
		{name: "start-returns-before-the-budget-end", hold: 100 * time.Millisecond},
		{name: "start-lasts-past-the-budget-end", hold: 2*time.Second + 500*time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// 10 s: cleanup's creation, before the reserve point, takes seconds on a loaded host.
			tp, g := startBlockedStep(t, "hb009-"+c.name[:10], "BeforeStop", true, 10)
			reserve := tp.find(runtimev1.EventPodTerminating, "").Time.Add(8 * time.Second)
			time.Sleep(time.Until(reserve.Add(c.hold)))
			g.open()
			tp.wait(120 * time.Second)
			terms := signalsTo(tp, "app", "SIGTERM")
			if len(terms) != 1 {
				t.Fatalf("%d SIGTERM sent to app, want one, at the reserve point (STOP-006); events:\n%s", len(terms), tp.timeline())
			}
			if at := terms[0].Time; at.Before(reserve) || at.After(reserve.Add(reactionBound)) {
				t.Errorf("app's stop signal at %s, want it at the reserve point %s (STOP-006, TIME-001/002, bound %s); events:\n%s", at, reserve, reactionBound, tp.timeline())
			}
			kills := signalsTo(tp, "cleanup", "SIGKILL")
			if len(kills) != 1 {
				t.Fatalf("%d SIGKILL sent to cleanup, want one at the limit of its run (DEFER-005); events:\n%s", len(kills), tp.timeline())
			}
			if kills[0].Time.Before(reserve) {
				t.Errorf("cleanup killed at %s, before the limit of its run %s (TIME-001)", kills[0].Time, reserve)
			}
			tp.before(kills[0], terms[0])
			if n := len(tp.all(runtimev1.EventContainerStarted, "cleanup")); n != 0 {
				t.Errorf("cleanup, killed while being started, started %d times, want never; events:\n%s", n, tp.timeline())
			}
			if term := tp.container("cleanup").State.Terminated; term == nil || term.Reason != v1alpha1.ReasonTimeout {
				t.Errorf("cleanup ended %+v, want reason Timeout (DEFER-005); events:\n%s", term, tp.timeline())
			}
			if a := tp.container("app").State.Terminated; a == nil || a.ExitCode == nil || *a.ExitCode != 0 {
				t.Errorf("app ended %+v, want exit code 0 on its stop signal; events:\n%s", a, tp.timeline())
			}
			if n := len(signalsTo(tp, "app", "SIGKILL")); n != 0 {
				t.Errorf("app was sent SIGKILL %d times, want none (its stop signal came at the reserve point); events:\n%s", n, tp.timeline())
			}
		})
	}
}

// A sidecar restarted during the stop sequence (SIDE-001: until its own step) whose start is
// held across the budget end gets SIGKILL once its program runs; the other instances get theirs
// at the budget end, not after it. The grace period, 10 s, leaves the restart the time to be
// created on a loaded host.
func TestSTOP010_ASidecarBeingStartedAtTheBudgetEndHoldsBackNoOtherKill(t *testing.T) {
	t.Parallel()
	g := &callGate{container: "flaky", start: true, firstCall: newFirstCall()}
	g.instance = 1
	tp := startPodWith(t, `
metadata: {name: kill-beside-starting}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 10
  restartBackoff: {initialSeconds: 0.05}
  volumes: [{name: data, emptyDir: {}}]
  initContainers:
  - name: flaky
    image: IMAGE
    restartPolicy: Always
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, 'until [ -e /data/stopping ]; do sleep 0.05; done; exit 1']
  - {name: side, image: IMAGE, restartPolicy: Always, command: [sh, -c, 'trap "" TERM; while true; do sleep 0.05; done']}
  containers:
  - name: app
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, 'trap "touch /data/stopping; exit 0" TERM; touch /data/app.ready; while true; do sleep 0.05; done']
`, func(b *backend.Backend) engine.Backend { g.Backend = b; return g })
	t.Cleanup(g.open)
	waitFile(tp, "data", "app.ready", 180*time.Second)
	tp.stop(nil, false)
	select {
	case <-g.entered:
	case <-time.After(60 * time.Second):
		t.Fatalf("flaky's restart was never started; events:\n%s", tp.timeline())
	}
	end := tp.find(runtimev1.EventPodTerminating, "").Time.Add(10 * time.Second)
	got := tp.waitEvent(time.Until(end)+reactionBound, "SIGKILL to side while flaky's start is held", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventSignalSent && ev.Container == "side" && ev.Signal != nil && ev.Signal.Name == "SIGKILL"
	})
	if got.Time.Before(end) {
		t.Errorf("SIGKILL to side at %s, before the budget end %s (TIME-001)", got.Time, end)
	}
	if n := len(signalsTo(tp, "flaky", "SIGKILL")); n != 0 {
		t.Errorf("flaky was sent SIGKILL while its start was held (%d); events:\n%s", n, tp.timeline())
	}
	g.open()
	tp.wait(120 * time.Second)
}
