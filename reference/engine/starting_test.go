package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
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
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "trap 'exit 7' TERM; while true; do sleep 0.05; done"]}
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
	if c == nil || c.Reason == v1alpha1.ReasonStartError || c.ExitCode == nil || *c.ExitCode != 7 {
		t.Fatalf("app ended %+v, want exit code 7 (its program ran and trapped the stop signal), not a StartError; events:\n%s", c, tp.timeline())
	}
	terms := signalsTo(tp, "app", "SIGTERM")
	if len(terms) != 1 {
		t.Fatalf("%d SIGTERM sent to app, want exactly one (STOP-007); events:\n%s", len(terms), tp.timeline())
	}
	tp.before(tp.find(runtimev1.EventContainerStarted, "app"), terms[0])
	if kills := signalsTo(tp, "app", "SIGKILL"); len(kills) != 0 {
		t.Errorf("app got SIGKILL, want it to have exited on its stop signal; events:\n%s", tp.timeline())
	}
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
	if exited.Reason == v1alpha1.ReasonStartError || exited.ExitCode == nil || *exited.ExitCode != 0 {
		t.Fatalf("the replaced instance ended %s (exit %v), want exit code 0 (its program trapped the stop signal), not a StartError; events:\n%s",
			exited.Reason, exited.ExitCode, tp.timeline())
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
}
