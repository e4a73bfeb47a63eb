package engine_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/store"
)

// An instance being started is held by the createRuntime hook between ContainerCreated and
// its program running (docs/runtime.md). A signal sent then would reach the OCI runtime's
// init process and kill the container before its program ran: a stop or an update would turn
// into a StartError. These tests hold the start of a container's first instance (the engine
// recorded ContainerCreated and called StartInstance, which has not returned) while a stop or
// an update asks for its signal, and check that the signal reaches the program.

// startGate blocks the StartInstance of one instance of a container (its first, unless
// instance says otherwise) until released.
type startGate struct {
	*backend.Backend
	container string
	instance  int
	*firstCall
}

func newStartGate(container string) *startGate {
	return &startGate{container: container, firstCall: newFirstCall()}
}

func (g *startGate) StartInstance(ctx context.Context, id string) error {
	if strings.HasSuffix(id, fmt.Sprintf("-%s-%d", g.container, g.instance)) {
		g.wait()
	}
	return g.Backend.StartInstance(ctx, id)
}

// hold starts the pod with the gate in front of its backend and returns once the gated
// container's instance is created and its start is held. The start is released on cleanup
// too, so that a failing test never leaves it held.
func (g *startGate) hold(t *testing.T, manifest string) *testPod {
	t.Helper()
	tp := startPodWith(t, manifest, func(b *backend.Backend) engine.Backend { g.Backend = b; return g })
	// Registered after startPodWith's cleanup, so it runs before it: the forced stop there
	// would wait for the held start.
	t.Cleanup(g.open)
	select {
	case <-g.entered:
	case <-time.After(120 * time.Second):
		t.Fatalf("%s's instance was never started; events:\n%s", g.container, tp.timeline())
	}
	tp.find(runtimev1.EventContainerCreated, g.container)
	return tp
}

// releaseAfter releases the held start once the engine had the time to send the signal it
// asked for (a signal sent while the start is held is the failure these tests look for; the
// wait gives it the chance to happen, nothing is asserted on its length).
func (g *startGate) releaseAfter(d time.Duration) {
	time.Sleep(d)
	g.open()
}

// signalsTo returns the SignalSent events of a container with the given signal name.
func signalsTo(tp *testPod, container, sig string) []runtimev1.Event {
	var out []runtimev1.Event
	for _, ev := range tp.all(runtimev1.EventSignalSent, container) {
		if ev.Signal != nil && ev.Signal.Name == sig {
			out = append(out, ev)
		}
	}
	return out
}

func TestSTOP007_StopWhileAnInstanceIsStartingSignalsItOnceItsProgramRuns(t *testing.T) {
	t.Parallel()
	g := newStartGate("app")
	tp := g.hold(t, `
metadata: {name: stop-starting}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 30
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "trap 'exit 7' TERM; touch /data/armed; while true; do sleep 0.05; done"]
`)
	// The stop waits for the start under way (MAIN-004): it is requested, the start released.
	stopped := make(chan error, 1)
	go func() { stopped <- tp.e.Stop(context.Background(), nil, false) }()
	g.releaseAfter(time.Second)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	tp.wait(60 * time.Second)
	tp.before(tp.find(runtimev1.EventContainerStarted, "app"), tp.find(runtimev1.EventPodTerminating, ""))

	c := tp.container("app").State.Terminated
	if c == nil || c.Reason == v1alpha1.ReasonStartError {
		t.Fatalf("app ended %+v, want its program to have run, not a StartError; events:\n%s", c, tp.timeline())
	}
	terms := signalsTo(tp, "app", "SIGTERM")
	if len(terms) != 1 {
		t.Fatalf("%d SIGTERM sent to app, want exactly one (STOP-007); events:\n%s", len(terms), tp.timeline())
	}
	tp.before(tp.find(runtimev1.EventContainerStarted, "app"), terms[0])
	endedOnItsTrap(tp, "armed", terms[0], 7, c.ExitCode, c.Signal)
}

// endedOnItsTrap checks how an instance whose shell traps its stop signal ended after one stop
// signal (term): with the trap's exit code, or by SIGKILL only when the signal may have come
// before the shell had set its trap. A shell is PID 1 of its namespace, and the kernel drops a
// signal PID 1 has no handler for, so the runtime's SIGKILL at the end of the grace period ends
// it: that race is the workload's, not the runtime's (the runtime signalled after
// ContainerStarted). The workload touches the data volume's file armed right after its trap;
// SignalSent is recorded before the signal is sent, so a SignalSent later than armed's mtime
// (plus a clock tick: mtime comes from the kernel's coarse clock) found the trap in place.
func endedOnItsTrap(tp *testPod, armed string, term runtimev1.Event, code int32, exitCode *int32, sig *v1alpha1.Signal) {
	tp.t.Helper()
	if exitCode != nil && *exitCode == code {
		return
	}
	trapped := false
	if fi, err := os.Stat(tp.p.Path(store.VolumesDir, "data", armed)); err == nil {
		trapped = fi.ModTime().Add(10 * time.Millisecond).Before(term.Time)
	}
	if trapped || sig == nil || sig.Name != "SIGKILL" {
		tp.t.Fatalf("app ended with exit code %v, signal %v, want exit code %d (its program trapped the stop signal), or SIGKILL if the signal came before the trap was set (trap set before it: %v); events:\n%s",
			exitCode, sig, code, trapped, tp.timeline())
	}
	tp.t.Logf("the stop signal came before the shell had set its trap; SIGKILL ended it at the grace period's end")
}

func TestUPD007_UpdateWhileAnInstanceIsStartingReplacesItOnceItsProgramRuns(t *testing.T) {
	t.Parallel()
	g := newStartGate("app")
	tp := g.hold(t, `
metadata: {name: upd-starting}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 30
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    env: [{name: V, value: one}]
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "`+looper("app")+`"]
`)
	next := updNext(tp)
	next.Spec.Containers[0].Env[0].Value = "two"
	updApply(tp, next, nil)
	g.releaseAfter(time.Second)
	exited := tp.waitEvent(60*time.Second, "the end of the replaced instance", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventContainerExited && ev.Container == "app"
	})
	if exited.Reason == v1alpha1.ReasonStartError {
		t.Fatalf("the replaced instance ended %s, want its program to have run, not a StartError; events:\n%s", exited.Reason, tp.timeline())
	}
	updObserved(tp, 2)
	if got := updWaitLines(tp, "data", "app", 2); got != "one\ntwo\n" {
		t.Errorf("runs %q, want one (the instance that was starting) then two (its replacement)", got)
	}
	terms := signalsTo(tp, "app", "SIGTERM")
	if len(terms) != 1 {
		t.Fatalf("%d SIGTERM sent to app, want one (the replacement's); events:\n%s", len(terms), tp.timeline())
	}
	tp.before(tp.find(runtimev1.EventContainerStarted, "app"), terms[0])
	endedOnItsTrap(tp, "app.armed.one", terms[0], 0, exited.ExitCode, exited.Signal)
}
