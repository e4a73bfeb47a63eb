package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/store"
)

// instanceGate holds the engine's first DeleteInstance (or, with start, StartInstance) of one
// instance, by the suffix of its ID, until released. The engine deletes an ended instance right
// after the state write and the events that record its exit, and starts one right after those
// that record its creation, so a held call is a supervisor stopped just after that commit.
type instanceGate struct {
	engine.Backend
	suffix string
	start  bool
	*firstCall
}

func (g *instanceGate) DeleteInstance(ctx context.Context, id string, pod *engine.PodInfo) error {
	if !g.start && strings.HasSuffix(id, g.suffix) {
		g.wait()
	}
	return g.Backend.DeleteInstance(ctx, id, pod)
}

func (g *instanceGate) StartInstance(ctx context.Context, id string) error {
	if g.start && strings.HasSuffix(id, g.suffix) {
		g.wait()
	}
	return g.Backend.StartInstance(ctx, id)
}

// cutEvents truncates the pod's events file before its first event that matches: what a
// supervisor killed after a state write, and before the append of the events of that write,
// leaves of the file.
func cutEvents(t *testing.T, p *store.Pod, match func(runtimev1.Event) bool) {
	t.Helper()
	path := p.Path(store.EventsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(b); {
		n := bytes.IndexByte(b[off:], '\n')
		if n < 0 {
			break
		}
		var ev runtimev1.Event
		if json.Unmarshal(b[off:off+n], &ev) == nil && match(ev) {
			if err := os.Truncate(path, int64(off)); err != nil {
				t.Fatal(err)
			}
			return
		}
		off += n + 1
	}
	t.Fatal("no event to cut the events file at")
}

func ofInstance(typ runtimev1.EventType, container string, restarts int32) func(runtimev1.Event) bool {
	return func(ev runtimev1.Event) bool {
		return ev.Type == typ && ev.Container == container && ev.RestartCount != nil && *ev.RestartCount == restarts
	}
}

// A supervisor killed between the state write of a commit and the append of its events (the
// state is written first: a window of a directory fsync and an event write, on every commit)
// left a state that records what those events say. The adopter continues from that state, so it
// never records them again itself: they were lost, and with them, under the conformance suite's
// repeated kills, the exit of a restarting container (ContainerExited, then its restart) or the
// start of an instance (the workload ran, no ContainerStarted). The state now carries the
// events of its write, and the adopter writes those the file lacks, in their place.
func TestSUP009_EventsALostSupervisorWroteOnlyIntoTheStateAreRecordedByTheAdopter(t *testing.T) {
	const manifest = `
metadata: {name: lost-batch}
spec:
  restartPolicy: Always
  terminationGracePeriodSeconds: 2
  restartBackoff: {initialSeconds: 0.05}
  containers:
  - {name: churn, image: IMAGE, command: [sh, -c, "sleep SECONDS; exit 3"]}
`
	for _, tc := range []struct {
		name    string
		seconds string
		// lose brings the pod to the commit after which its supervisor is lost, returns what
		// starts the batch that commit wrote and releases what it held.
		lose func(t *testing.T, start func(...func(*engine.Options)) *testPod) (*testPod, func(runtimev1.Event) bool, func())
		// want are the events of the lost batch, each exactly once, in this order.
		want []func(runtimev1.Event) bool
	}{{
		name:    "the exit of a restarting instance",
		seconds: "0.2",
		lose: func(t *testing.T, start func(...func(*engine.Options)) *testPod) (*testPod, func(runtimev1.Event) bool, func()) {
			g := &instanceGate{suffix: "-churn-0", firstCall: newFirstCall()}
			tp := start(func(o *engine.Options) { g.Backend = o.Backend; o.Backend = g })
			t.Cleanup(g.open) // before the pod's cleanup, whose forced stop would wait for it
			select {
			case <-g.entered:
			case <-time.After(120 * time.Second):
				t.Fatalf("churn's first instance did not end; events:\n%s", tp.timeline())
			}
			return tp, ofInstance(runtimev1.EventContainerExited, "churn", 0), g.open
		},
		want: []func(runtimev1.Event) bool{
			ofInstance(runtimev1.EventContainerExited, "churn", 0),
			ofInstance(runtimev1.EventContainerRestarting, "churn", 0),
			ofInstance(runtimev1.EventContainerCreated, "churn", 1),
		},
	}, {
		name:    "the start of an instance",
		seconds: "3",
		lose: func(t *testing.T, start func(...func(*engine.Options)) *testPod) (*testPod, func(runtimev1.Event) bool, func()) {
			tp := start()
			// Nothing is committed after ContainerReady until the instance ends.
			tp.waitEvent(120*time.Second, "churn ready", ofInstance(runtimev1.EventContainerReady, "churn", 0))
			return tp, ofInstance(runtimev1.EventContainerStarted, "churn", 0), func() {}
		},
		want: []func(runtimev1.Event) bool{
			ofInstance(runtimev1.EventContainerStarted, "churn", 0),
			ofInstance(runtimev1.EventContainerReady, "churn", 0),
			ofInstance(runtimev1.EventContainerExited, "churn", 0),
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := func(tweaks ...func(*engine.Options)) *testPod {
				return startPod(t, strings.ReplaceAll(manifest, "SECONDS", tc.seconds), tweaks...)
			}
			tp, cutAt, release := tc.lose(t, start)
			tp.adopt(func() { cutEvents(t, tp.p, cutAt) })
			release()
			tp.waitEvent(120*time.Second, "churn's restart running", ofInstance(runtimev1.EventContainerStarted, "churn", 1))
			evs := tp.events()
			for i, ev := range evs {
				if ev.Seq != int64(i+1) {
					t.Fatalf("event %d has seq %d: a gap or a repeat (SUP-009); events:\n%s", i, ev.Seq, tp.timeline())
				}
			}
			prev := int64(0)
			for i, match := range tc.want {
				var seqs []int64
				for _, ev := range evs {
					if match(ev) {
						seqs = append(seqs, ev.Seq)
					}
				}
				if len(seqs) != 1 || seqs[0] < prev {
					t.Fatalf("event %d of the lost batch recorded at seqs %v, want once, after seq %d; events:\n%s", i, seqs, prev, tp.timeline())
				}
				prev = seqs[0]
			}
		})
	}
}

// TestRST006_InstanceALostSupervisorCreatedButNeverStartedIsNoRestart: the supervisor is lost
// after it recorded churn's restart created (restartCount 1) and before it let it start; the
// container is destroyed with it (its hook fails). The adopter deletes the instance and creates
// it afresh: that one is the first restart, restartCount 1, not 2 as if the lost one had run.
func TestRST006_InstanceALostSupervisorCreatedButNeverStartedIsNoRestart(t *testing.T) {
	t.Parallel()
	lostBeforeStart(t, `
metadata: {name: lost-created}
spec:
  restartPolicy: Always
  terminationGracePeriodSeconds: 2
  restartBackoff: {initialSeconds: 0.05}
  containers:
  - {name: churn, image: IMAGE, command: [sh, -c, "sleep 0.2; exit 3"]}
`, "churn", 1)
}

// TestSUP009_DeferAttemptALostSupervisorCreatedButNeverStartedGetsItsOwnID: the same loss in
// the stop sequence, for a defer container's first attempt: the adopter's attempt is attempt 0
// again, under a containerID of its own.
func TestSUP009_DeferAttemptALostSupervisorCreatedButNeverStartedGetsItsOwnID(t *testing.T) {
	t.Parallel()
	lostBeforeStart(t, `
metadata: {name: lost-created-defer}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 60
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "sleep 0.2"]}
  deferContainers:
  - {name: cleanup, image: IMAGE, command: [true]}
`, "cleanup", 0)
}

// lostBeforeStart runs the pod of manifest until instance n of container is recorded created,
// holds its start, loses the supervisor there (the OCI runtime destroys the instance, as a dead
// supervisor's failed hook makes it), adopts the pod and checks the adopter's instance: number
// n again (RST-006), a containerID of its own (RST-004), and no ContainerCreated twice for one
// containerID (SUP-009).
func lostBeforeStart(t *testing.T, manifest, container string, n int32) {
	t.Helper()
	// Never released: the lost supervisor's start stays held, as a dead one does nothing more.
	g := &instanceGate{suffix: fmt.Sprintf("-%s-%d", container, n), start: true, firstCall: newFirstCall()}
	tp := startPod(t, manifest, func(o *engine.Options) { g.Backend = o.Backend; o.Backend = g })
	select {
	case <-g.entered:
	case <-time.After(120 * time.Second):
		t.Fatalf("%s's instance %d was never started; events:\n%s", container, n, tp.timeline())
	}
	created := tp.waitEvent(30*time.Second, container+"'s instance created", ofInstance(runtimev1.EventContainerCreated, container, n))
	tp.adopt(func() {
		// The supervisor's death closes the hook's FIFO: the OCI runtime destroys the container.
		st, err := tp.p.ReadState()
		if err != nil {
			t.Fatal(err)
		}
		id := st.Containers[container].ContainerID
		info := &engine.PodInfo{Name: tp.p.Name, UID: st.Pod.Status.UID, Dir: tp.p.Dir, Spec: &st.Pod.Spec}
		if err := tp.be.DeleteInstance(context.Background(), id, info); err != nil {
			t.Fatal(err)
		}
	})
	started := tp.waitEvent(120*time.Second, container+"'s instance running", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventContainerStarted && ev.Container == container && ev.Seq > created.Seq
	})
	if started.RestartCount == nil || *started.RestartCount != n {
		t.Errorf("%s's instance started as %s, want restartCount %d: the instance the lost supervisor created never started (RST-006); events:\n%s",
			container, started.ContainerID, n, tp.timeline())
	}
	// The fresh instance is another instance: its own containerID (RST-004), and no instance's
	// ContainerCreated twice in the history (SUP-009).
	if started.ContainerID == created.ContainerID {
		t.Errorf("the adopter's fresh instance reuses the discarded one's containerID %s; events:\n%s", created.ContainerID, tp.timeline())
	}
	seen := map[string]int64{}
	for _, ev := range tp.events() {
		if ev.Type != runtimev1.EventContainerCreated {
			continue
		}
		if first, dup := seen[ev.ContainerID]; dup {
			t.Errorf("ContainerCreated of %s recorded twice: seq %d and seq %d; events:\n%s", ev.ContainerID, first, ev.Seq, tp.timeline())
		}
		seen[ev.ContainerID] = ev.Seq
	}
}
