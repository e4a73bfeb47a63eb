package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/reference/engine"
)

// pausingBackend holds the start of the instances whose ID ends in suffix: it reports the
// paused start on paused and lets it go on when release is closed.
type pausingBackend struct {
	engine.Backend
	suffix  string
	paused  chan string
	release chan struct{}
}

func (b *pausingBackend) StartInstance(ctx context.Context, id string) error {
	if strings.HasSuffix(id, b.suffix) {
		b.paused <- id
		<-b.release
	}
	return b.Backend.StartInstance(ctx, id)
}

// TestMAIN004_AStopWaitsForAStartUnderWay restarts app once and holds its restart's start
// (the OCI start of instance 1, after its ContainerCreated) while a stop is requested: the
// stop sequence begins only once that start ended, so no ContainerStarted of app follows
// PodTerminating, and the instance it started is stopped like any running one.
func TestMAIN004_AStopWaitsForAStartUnderWay(t *testing.T) {
	t.Parallel()
	var pb *pausingBackend
	tp := startPod(t, `
metadata: {name: start-under-way}
spec:
  restartPolicy: Always
  restartBackoff: {initialSeconds: 0.05}
  terminationGracePeriodSeconds: 5
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "trap 'exit 0' TERM; [ -e /data/x ] || { touch /data/x; exit 1; }; sleep 100 & wait"], volumeMounts: [{name: data, mountPath: /data}]}
`, func(o *engine.Options) {
		pb = &pausingBackend{Backend: o.Backend, suffix: "-app-1", paused: make(chan string, 1), release: make(chan struct{})}
		o.Backend = pb
	})
	select {
	case <-pb.paused:
	case <-time.After(60 * time.Second):
		t.Fatalf("app's restart did not reach its start; events:\n%s", tp.timeline())
	}
	stopped := make(chan error, 1)
	go func() { stopped <- tp.e.Stop(context.Background(), nil, false) }()
	time.Sleep(300 * time.Millisecond) // the stop request reaches the engine while the start is held
	close(pb.release)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	tp.wait(60 * time.Second)
	terminating := tp.find(runtimev1.EventPodTerminating, "")
	for _, ev := range tp.all(runtimev1.EventContainerStarted, "app") {
		if ev.Seq > terminating.Seq {
			t.Fatalf("app's instance %s started (seq %d) after PodTerminating (seq %d); events:\n%s", ev.ContainerID, ev.Seq, terminating.Seq, tp.timeline())
		}
	}
	started := tp.all(runtimev1.EventContainerStarted, "app")
	if len(started) != 2 {
		t.Fatalf("%d ContainerStarted of app, want 2 (the first instance and the restart whose start was under way); events:\n%s", len(started), tp.timeline())
	}
	exits := tp.all(runtimev1.EventContainerExited, "app")
	if len(exits) != 2 || exits[1].ContainerID != started[1].ContainerID || exits[1].Seq < terminating.Seq {
		t.Fatalf("want the restarted instance to end in the stop sequence; events:\n%s", tp.timeline())
	}
}
