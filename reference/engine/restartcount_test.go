package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/store"
)

// createdGate holds the engine right after the backend created one instance (by the suffix
// of its ID), before CreateInstance returns, until released.
type createdGate struct {
	*backend.Backend
	suffix string
	*firstCall
}

func (g *createdGate) CreateInstance(ctx context.Context, pod *engine.PodInfo, sb json.RawMessage, req *engine.InstanceRequest) (int, error) {
	pid, err := g.Backend.CreateInstance(ctx, pod, sb, req)
	if strings.HasSuffix(req.ID, g.suffix) {
		g.wait()
	}
	return pid, err
}

// TestRST006_RestartInterruptedByTheExitPolicyIsNotCounted: b's restart is being created when
// a's exit fires the exit policy. The instance never starts, so it is neither a restart
// (restartCount stays 0) nor recorded as created once the stop sequence began.
func TestRST006_RestartInterruptedByTheExitPolicyIsNotCounted(t *testing.T) {
	t.Parallel()
	g := &createdGate{suffix: "-b-1", firstCall: newFirstCall()}
	tp := startPodWith(t, `
metadata: {name: rst-interrupted}
spec:
  restartPolicy: Never
  exitPolicy: Any
  terminationGracePeriodSeconds: 5
  restartBackoff: {initialSeconds: 0.05}
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: a, image: IMAGE, command: [sh, -c, "while [ ! -e /data/go ]; do sleep 0.05; done; exit 0"], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: b, image: IMAGE, restartPolicy: Always, command: [sh, -c, "exit 1"]}
`, func(b *backend.Backend) engine.Backend { g.Backend = b; return g })
	t.Cleanup(g.open) // before startPodWith's cleanup: its forced stop would wait for the held creation
	select {
	case <-g.entered:
	case <-time.After(120 * time.Second):
		t.Fatalf("b's restart was never created; events:\n%s", tp.timeline())
	}
	if err := os.WriteFile(tp.p.Path(store.VolumesDir, "data", "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tp.waitEvent(30*time.Second, "the exit policy firing", func(ev runtimev1.Event) bool { return ev.Type == runtimev1.EventPolicyFired })
	g.open()
	tp.wait(60 * time.Second)

	b := tp.container("b")
	if b.RestartCount != 0 {
		t.Errorf("b's restartCount %d, want 0: its restart never started (RST-006); events:\n%s", b.RestartCount, tp.timeline())
	}
	if term := b.State.Terminated; term == nil || term.ExitCode == nil || *term.ExitCode != 1 {
		t.Errorf("b ended %+v, want its only instance's exit 1 as its final state", b.State)
	}
	if c, s := len(tp.all(runtimev1.EventContainerCreated, "b")), len(tp.all(runtimev1.EventContainerStarted, "b")); c != 1 || s != 1 {
		t.Errorf("b: %d ContainerCreated, %d ContainerStarted, want one of each: no instance is recorded created once the stop sequence began; events:\n%s", c, s, tp.timeline())
	}
}
