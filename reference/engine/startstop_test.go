package engine_test

import (
	"context"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
)

// TestMAIN004_AStopWaitsForAStartUnderWay restarts app once and holds its restart's start (the
// OCI start of instance 1, after its ContainerCreated) while a stop is requested: the stop
// sequence begins only once that start ended, so no ContainerStarted of app follows
// PodTerminating, and the instance it started is stopped like any running one. Before MAIN-004
// the stop began at once and the instance started after it (issue 28).
func TestMAIN004_AStopWaitsForAStartUnderWay(t *testing.T) {
	t.Parallel()
	g := newStartGate("app")
	g.instance = 1
	tp := g.hold(t, `
metadata: {name: start-under-way}
spec:
  restartPolicy: Always
  restartBackoff: {initialSeconds: 0.05}
  terminationGracePeriodSeconds: 5
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "trap 'exit 0' TERM; [ -e /data/x ] || { touch /data/x; exit 1; }; sleep 100 & wait"], volumeMounts: [{name: data, mountPath: /data}]}
`)
	stopped := make(chan error, 1)
	go func() { stopped <- tp.e.Stop(context.Background(), nil, false) }()
	g.releaseAfter(300 * time.Millisecond) // the stop request reaches the engine while the start is held
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	tp.wait(60 * time.Second)
	terminating := tp.find(runtimev1.EventPodTerminating, "")
	started := tp.all(runtimev1.EventContainerStarted, "app")
	for _, ev := range started {
		if ev.Seq > terminating.Seq {
			t.Fatalf("app's instance %s started (seq %d) after PodTerminating (seq %d); events:\n%s", ev.ContainerID, ev.Seq, terminating.Seq, tp.timeline())
		}
	}
	if len(started) != 2 {
		t.Fatalf("%d ContainerStarted of app, want 2 (the first instance and the restart whose start was under way); events:\n%s", len(started), tp.timeline())
	}
	exits := tp.all(runtimev1.EventContainerExited, "app")
	if len(exits) != 2 || exits[1].ContainerID != started[1].ContainerID || exits[1].Seq < terminating.Seq {
		t.Fatalf("want the restarted instance to end in the stop sequence; events:\n%s", tp.timeline())
	}
}
