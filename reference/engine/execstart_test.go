package engine_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
)

// The steps that start a process with an exec in a running instance — hooks, exec probe
// attempts, notifier actions — are ordered against the stop that forbids them (MAIN-005,
// start.go): a stop requested while such a step's start is under way (decided, its process not
// begun) waits until the process has begun. These tests hold one exec between the engine's
// decision and the start of its process (the backend's Exec, before it calls the real one),
// request the stop that forbids the step, let the exec go on a moment later, and check that
// the stop was not recorded before the process began. Without the ordering the stop is
// recorded at once, while the exec is held, and the process begins after it.

// execGate holds the first Exec whose command holds the argument marker until released, and
// keeps the pod's events as they were when it let that exec go on to start its process.
type execGate struct {
	*backend.Backend
	marker string
	*firstCall
	mu      sync.Mutex
	tp      *testPod
	atBegin []runtimev1.Event
}

func newExecGate(marker string) *execGate {
	return &execGate{marker: marker, firstCall: newFirstCall()}
}

func (g *execGate) Exec(ctx context.Context, id string, argv []string, begun func()) (int, error) {
	if slices.Contains(argv, g.marker) {
		held := false
		g.first.Do(func() { held = true })
		if held {
			close(g.entered)
			<-g.release
			g.mu.Lock()
			g.atBegin = g.tp.events()
			g.mu.Unlock()
		}
	}
	return g.Backend.Exec(ctx, id, argv, begun)
}

// wrap is the gate in front of the real backend (startPodWith, ntfEnv.wrap).
func (g *execGate) wrap(b *backend.Backend) engine.Backend {
	g.Backend = b
	return g
}

// held waits until the gated exec is held, and lets the gate read tp's events from then on.
func (g *execGate) held(t *testing.T, tp *testPod) {
	t.Helper()
	g.mu.Lock()
	g.tp = tp
	g.mu.Unlock()
	// Registered after the pod's cleanup, so it runs before it: the forced stop there would
	// wait for the held exec.
	t.Cleanup(g.open)
	select {
	case <-g.entered:
	case <-time.After(120 * time.Second):
		t.Fatalf("the exec %q was never started; events:\n%s", g.marker, tp.timeline())
	}
}

// stopWhileHeld requests the stop (in a goroutine: it may wait for the held exec), lets the exec
// go on once the request had the time to reach the engine, and waits for the request to return
// and the pod to be terminal. Then the pod's events when the exec was let go must hold no event
// that forbidden matches.
func (g *execGate) stopWhileHeld(t *testing.T, tp *testPod, grace *int64, force bool, forbidden func(runtimev1.Event) bool, what string) {
	t.Helper()
	stopped := make(chan error, 1)
	go func() { stopped <- tp.e.Stop(context.Background(), grace, force) }()
	time.Sleep(300 * time.Millisecond) // nothing is asserted on this wait: it lets a wrong stop happen
	g.open()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the stop request did not return after the exec was let go; events:\n%s", tp.timeline())
	}
	tp.wait(60 * time.Second)
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, ev := range g.atBegin {
		if forbidden(ev) {
			t.Fatalf("%s (seq %d) was recorded before the process of the exec %q, whose start was under way, began; events:\n%s", what, ev.Seq, g.marker, tp.timeline())
		}
	}
}

func forcedStopRequested(ev runtimev1.Event) bool {
	return ev.Type == runtimev1.EventStopRequested && ev.Force
}

// TestMAIN005_AForcedStopWaitsForAHookOrProbeUnderWay: a forced stop forbids hooks (FORCE-003)
// and exec probe attempts (its SIGKILL reaches every process of the pod, FORCE-002); one whose
// start is under way when it is requested has begun its process before it is recorded.
func TestMAIN005_AForcedStopWaitsForAHookOrProbeUnderWay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, marker, step string
		// graceful: a graceful stop comes first (it runs the preStop hook).
		graceful bool
	}{
		{name: "a postStart hook", marker: "poststart-held",
			step: `lifecycle: {postStart: {exec: {command: [sh, -c, "sleep 60", poststart-held]}}}`},
		{name: "an exec probe attempt", marker: "probe-held",
			step: `livenessProbe: {exec: {command: [sh, -c, "sleep 60", probe-held]}, periodSeconds: 1, timeoutSeconds: 100}`},
		{name: "a preStop hook", marker: "prestop-held", graceful: true,
			step: `lifecycle: {preStop: {exec: {command: [sh, -c, "sleep 60", prestop-held]}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := newExecGate(tc.marker)
			tp := startPodWith(t, fmt.Sprintf(`
metadata: {name: %s}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 30
  containers:
  - name: app
    image: IMAGE
    command: [sh, -c, "trap 'exit 0' TERM; sleep 300 & wait"]
    %s
`, tc.marker, tc.step), g.wrap)
			if tc.graceful {
				tp.waitEvent(60*time.Second, "app Ready", func(ev runtimev1.Event) bool {
					return ev.Type == runtimev1.EventContainerReady && ev.Container == "app"
				})
				tp.stop(nil, false)
			}
			g.held(t, tp)
			g.stopWhileHeld(t, tp, nil, true, forcedStopRequested, "the forced StopRequested")
		})
	}
}

func TestMAIN005_AStopWaitsForANotifierActionUnderWay(t *testing.T) {
	t.Parallel()
	g := newExecGate("action-held")
	env := newNtfEnv(t)
	env.wrap = g.wrap
	tp := env.start(fmt.Sprintf(ntfPodHead, "action-under-way", "action-under-way")+`
  containers:
  - name: app
    image: IMAGE
    command: [sh, -c, "trap 'exit 0' TERM; sleep 300 & wait"]
    notifiers:
    - {name: mark, timeoutSeconds: 120, action: {exec: {command: [sh, -c, "true", action-held]}}}
`, true)
	env.waitStarted(tp, "app")
	env.create("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: held}\nspec: {notifier: mark, pods: [action-under-way]}\n")
	env.runner("held")
	g.held(t, tp)
	grace := int64(20)
	g.stopWhileHeld(t, tp, &grace, false, func(ev runtimev1.Event) bool { return ev.Type == runtimev1.EventPodTerminating }, "PodTerminating")
	tp.before(tp.find(runtimev1.EventNotifierStarted, "app"), tp.find(runtimev1.EventPodTerminating, ""))
	_, recs := env.final("held", 60*time.Second)
	if d := delivery(t, recs["action-under-way"], "app"); d.Phase != v1alpha1.NotificationSucceeded {
		t.Errorf("delivery = %+v, want Succeeded: its action began before the stop", d)
	}
}
