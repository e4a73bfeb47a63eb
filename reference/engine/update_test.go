package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/oci"
	"podspec.dev/podspec/reference/store"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation"
)

// The in-place update scenarios (docs/spec/update.md) call Engine.Update directly, as the
// supervisor's update handler does.

// looper is a main container body that records $V in /data/NAME, then runs until SIGTERM; it
// touches /data/NAME.armed.$V once its SIGTERM trap is set (endedOnItsTrap).
func looper(name string) string {
	return `echo $V >> /data/` + name + `; trap 'exit 0' TERM; touch /data/` + name + `.armed.$V; while true; do sleep 0.05; done`
}

// updNext returns the pod's stored manifest (without status), to be changed by the test.
func updNext(tp *testPod) *v1alpha1.Pod {
	tp.t.Helper()
	st, err := tp.p.ReadState()
	if err != nil {
		tp.t.Fatal(err)
	}
	b, err := json.Marshal(st.Pod)
	if err != nil {
		tp.t.Fatal(err)
	}
	var p v1alpha1.Pod
	if err := json.Unmarshal(b, &p); err != nil {
		tp.t.Fatal(err)
	}
	p.Status = nil
	return &p
}

// updApply sends an update that must be accepted and returns the generation it produced.
func updApply(tp *testPod, p *v1alpha1.Pod, images map[string]string) int64 {
	tp.t.Helper()
	st, err := tp.p.ReadState()
	if err != nil {
		tp.t.Fatal(err)
	}
	_, gen, err := tp.e.Update(context.Background(), &engine.UpdateRequest{Pod: p, Generation: st.Pod.Metadata.Generation, Images: images})
	if err != nil {
		tp.t.Fatalf("update refused: %v; events:\n%s", err, tp.timeline())
	}
	return gen
}

// updObserved waits until status.observedGeneration reaches gen and the UpdateApplied that
// records it is in the events file: the engine writes the state before it appends the events
// that describe it, so a test that read the events right after seeing the state could miss it.
func updObserved(tp *testPod, gen int64) *store.State {
	tp.t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for {
		st, err := tp.p.ReadState()
		if err != nil {
			tp.t.Fatal(err)
		}
		if st.Pod.Status.ObservedGeneration >= gen && slices.ContainsFunc(tp.all(runtimev1.EventUpdateApplied, ""), func(ev runtimev1.Event) bool { return ev.Generation >= gen }) {
			return st
		}
		if time.Now().After(deadline) {
			tp.t.Fatalf("observedGeneration %d, want %d; events:\n%s", st.Pod.Status.ObservedGeneration, gen, tp.timeline())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// updWaitFile waits until an emptyDir file has want lines.
func updWaitLines(tp *testPod, vol, file string, want int) string {
	tp.t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for {
		s := tp.volume(vol, file)
		if strings.Count(s, "\n") >= want {
			return s
		}
		if time.Now().After(deadline) {
			tp.t.Fatalf("%s/%s = %q, want %d lines; events:\n%s", vol, file, s, want, tp.timeline())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// updRecord returns the record of a running container once the engine has recorded its start.
func updRecord(tp *testPod, name string) store.Instance {
	tp.t.Helper()
	// The workload can write its first line before the engine has recorded its start (the
	// engine waits for the exec and for its lock first): wait for the record to say Running.
	deadline := time.Now().Add(120 * time.Second)
	for {
		st, err := tp.p.ReadState()
		if err != nil {
			tp.t.Fatal(err)
		}
		r := st.Containers[name]
		if r == nil {
			tp.t.Fatalf("no record of %s", name)
		}
		if r.Running || time.Now().After(deadline) {
			return *r
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cgroupValue reads a cgroup file of an instance (v1 controller file, else the v2 name).
func cgroupValue(t *testing.T, uid, id, controller, v1, v2 string) string {
	t.Helper()
	cg := backend.CgroupParent(uid) + "/" + id
	for _, try := range [][2]string{{controller, v1}, {"", v2}} {
		p, err := oci.CgroupFile(cg, try[0], try[1])
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			return strings.TrimSpace(string(b))
		}
	}
	t.Fatalf("no cgroup file %s/%s of %s", v1, v2, cg)
	return ""
}

func TestUPD010_ResourcesAreAppliedLiveWithoutARestart(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: upd-resize}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "`+looper("app")+`"]
    resources: {limits: {memory: 64Mi, pids: "100"}}
`)
	updWaitLines(tp, "data", "app", 1)
	before := updRecord(tp, "app")
	uid := tp.status().UID
	if got := cgroupValue(t, uid, before.ContainerID, "memory", "memory.limit_in_bytes", "memory.max"); got != "67108864" {
		t.Fatalf("memory limit before the update = %s, want 67108864", got)
	}
	next := updNext(tp)
	next.Spec.Containers[0].Resources.Limits["memory"] = "96Mi"
	next.Spec.Containers[0].Resources.Limits["pids"] = "200"
	gen := updApply(tp, next, nil)
	if gen != 2 {
		t.Errorf("generation after the update = %d, want 2 (UPD-005)", gen)
	}
	st := updObserved(tp, 2)
	after := st.Containers["app"]
	if after.ContainerID != before.ContainerID || after.PID != before.PID || !after.Running {
		t.Errorf("app after the resize: %s pid %d, want the same instance %s pid %d still running (UPD-010)", after.ContainerID, after.PID, before.ContainerID, before.PID)
	}
	if got := cgroupValue(t, uid, before.ContainerID, "memory", "memory.limit_in_bytes", "memory.max"); got != "100663296" {
		t.Errorf("memory limit after the update = %s, want 100663296 (96Mi)", got)
	}
	if got := cgroupValue(t, uid, before.ContainerID, "pids", "pids.max", "pids.max"); got != "200" {
		t.Errorf("pids limit after the update = %s, want 200", got)
	}
	if err := syscall.Kill(before.PID, 0); err != nil {
		t.Errorf("the original process %d is gone: %v", before.PID, err)
	}
	if n := len(tp.all("ContainerExited", "app")); n != 0 {
		t.Errorf("app exited %d times, want 0", n)
	}
	if evs := tp.all(runtimev1.EventUpdateApplied, ""); len(evs) != 1 || evs[0].Generation != 2 {
		t.Errorf("UpdateApplied events %+v, want one for generation 2", evs)
	}
	if q := st.Pod.Spec.Containers[0].Resources.Limits["memory"]; q != "96Mi" {
		t.Errorf("stored manifest memory limit = %s, want 96Mi", q)
	}
}

// noResize is the real backend on an OCI runtime without an update verb (runsc).
type noResize struct{ *backend.Backend }

func (noResize) ResizeSupported(context.Context) error {
	return errors.New("the test's OCI runtime has no update verb")
}

// TestUPD010_ARuntimeThatCannotResizeRefusesTheUpdate: on a backend that cannot resize a live
// instance, an update of a running container's resources is refused with
// ErrUpdateUnsupported before anything is accepted (no restart in place of the resize, which
// UPD-010 forbids); the same change to a container that waits to start is accepted, since its
// next instance is created with the new limits (UPD-012).
func TestUPD010_ARuntimeThatCannotResizeRefusesTheUpdate(t *testing.T) {
	t.Parallel()
	tp := startPodWith(t, `
metadata: {name: upd-noresize}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "`+looper("app")+`"]
    resources: {limits: {memory: 64Mi}}
  - name: later
    image: IMAGE
    dependsOn: [{name: app, condition: Completed}]
    command: [sh, -c, "exit 0"]
    resources: {limits: {memory: 64Mi}}
`, func(be *backend.Backend) engine.Backend { return noResize{be} })
	updWaitLines(tp, "data", "app", 1)
	before := updRecord(tp, "app")

	next := updNext(tp)
	next.Spec.Containers[0].Resources.Limits["memory"] = "96Mi"
	st0, err := tp.p.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	_, gen, err := tp.e.Update(context.Background(), &engine.UpdateRequest{Pod: next, Generation: st0.Pod.Metadata.Generation})
	if !errors.Is(err, engine.ErrUpdateUnsupported) || !strings.Contains(fmt.Sprint(err), spec.UPD010) {
		t.Fatalf("resize of running app without resize support: generation %d, error %v; want ErrUpdateUnsupported naming %s", gen, err, spec.UPD010)
	}
	resp, err := tp.e.HandleUpdate(context.Background(), mustJSON(t, engine.UpdateRequest{Pod: next, Generation: st0.Pod.Metadata.Generation}))
	if err != nil || resp.Refused != "Failed" {
		t.Fatalf("the supervisor's answer: %+v, %v; want Refused Failed", resp, err)
	}
	stNow, err := tp.p.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	after := stNow.Containers["app"]
	if after.ContainerID != before.ContainerID || after.PID != before.PID || !after.Running {
		t.Errorf("app after the refused update: %s pid %d, want %s pid %d untouched", after.ContainerID, after.PID, before.ContainerID, before.PID)
	}
	if g := stNow.Pod.Metadata.Generation; g != st0.Pod.Metadata.Generation {
		t.Errorf("generation %d after the refused update, want %d", g, st0.Pod.Metadata.Generation)
	}
	if m := stNow.Pod.Spec.Containers[0].Resources.Limits["memory"]; m != "64Mi" {
		t.Errorf("stored memory of app %s after the refused update, want 64Mi", m)
	}
	if n := len(tp.all(engine.EventUpdateAccepted, "")); n != 0 {
		t.Errorf("%d UpdateAccepted events for a refused update", n)
	}

	// later waits for app: no live instance, so its resize needs none.
	next = updNext(tp)
	next.Spec.Containers[1].Resources.Limits["memory"] = "96Mi"
	if gen := updApply(tp, next, nil); gen != st0.Pod.Metadata.Generation+1 {
		t.Errorf("generation after the waiting container's resize = %d, want %d", gen, st0.Pod.Metadata.Generation+1)
	}
}

// refusingResize is the real backend on an OCI runtime that refuses every new limit (as runc
// refuses a memory limit below the usage).
type refusingResize struct{ *backend.Backend }

func (refusingResize) UpdateResources(context.Context, string, *v1alpha1.ResourceRequirements) error {
	return errors.New("runc update: the test's OCI runtime refuses the new limits")
}

// TestUPD010_ARefusedResizeKeepsTheInstanceUntilItsNextOne: when the OCI runtime refuses an
// accepted resize, the running instance keeps running with its old limits (no restart, which
// UPD-010 forbids), ResizeFailed says so, and status.observedGeneration stays below the
// update's generation (UPD-006) until the container's next instance, created with the new
// limits, runs.
func TestUPD010_ARefusedResizeKeepsTheInstanceUntilItsNextOne(t *testing.T) {
	t.Parallel()
	tp := startPodWith(t, `
metadata: {name: upd-refused}
spec:
  restartPolicy: Always
  restartBackoff: {initialSeconds: 0.05}
  terminationGracePeriodSeconds: 2
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "`+looper("app")+`"]
    resources: {limits: {memory: 64Mi}}
`, func(be *backend.Backend) engine.Backend { return refusingResize{be} })
	updWaitLines(tp, "data", "app", 1)
	before := updRecord(tp, "app")
	next := updNext(tp)
	next.Spec.Containers[0].Resources.Limits["memory"] = "96Mi"
	if gen := updApply(tp, next, nil); gen != 2 {
		t.Fatalf("generation after the update = %d, want 2", gen)
	}
	tp.waitEvent(30*time.Second, "ResizeFailed for app", func(ev runtimev1.Event) bool {
		return ev.Type == engine.EventResizeFailed && ev.Container == "app" && ev.ContainerID == before.ContainerID
	})
	st, err := tp.p.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	if a := st.Containers["app"]; a.ContainerID != before.ContainerID || a.PID != before.PID || !a.Running {
		t.Errorf("app after the refused resize: %s pid %d running %v; want %s pid %d still running (UPD-010)", a.ContainerID, a.PID, a.Running, before.ContainerID, before.PID)
	}
	if g := st.Pod.Status.ObservedGeneration; g != 1 {
		t.Errorf("observedGeneration %d after a resize that did not take effect, want 1 (UPD-006)", g)
	}
	if n := len(tp.all(runtimev1.EventUpdateApplied, "")); n != 0 {
		t.Errorf("%d UpdateApplied events for a resize that did not take effect", n)
	}
	if got := cgroupValue(t, st.Pod.Status.UID, before.ContainerID, "memory", "memory.limit_in_bytes", "memory.max"); got != "67108864" {
		t.Errorf("memory limit of the running instance = %s, want its old 67108864", got)
	}

	// Its next instance is created with the new limits: then the generation is observed.
	if err := syscall.Kill(before.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	st = updObserved(tp, 2)
	a := st.Containers["app"]
	if a.ContainerID == before.ContainerID || !a.Running {
		t.Fatalf("app after its restart: %s running %v, want a new running instance", a.ContainerID, a.Running)
	}
	if got := cgroupValue(t, st.Pod.Status.UID, a.ContainerID, "memory", "memory.limit_in_bytes", "memory.max"); got != "100663296" {
		t.Errorf("memory limit of the next instance = %s, want 100663296 (96Mi)", got)
	}
	if n := len(tp.all(runtimev1.EventUpdateApplied, "")); n != 1 {
		t.Errorf("%d UpdateApplied events once the next instance runs, want 1", n)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestUPD007_UPD008_UPD009_ChangedEnvRestartsOnlyThatContainer(t *testing.T) {
	t.Parallel()
	// a exits 3 on SIGTERM while V=one: without UPD-008 that end would be a failure that
	// ends the pod (restartPolicy Never, exit policy All needs b too, but the result is Failed).
	tp := startPod(t, `
metadata: {name: upd-restart, labels: {tier: web}}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  volumes: [{name: data, emptyDir: {}}]
  initContainers:
  - {name: side, image: IMAGE, restartPolicy: Always, command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]}
  containers:
  - name: a
    image: IMAGE
    env: [{name: V, value: one}]
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "echo $V >> /data/a; trap 'if [ $V = one ]; then exit 3; fi; exit 0' TERM; while true; do sleep 0.05; done"]
  - name: b
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "`+looper("b")+`"]
`)
	updWaitLines(tp, "data", "a", 1)
	updWaitLines(tp, "data", "b", 1)
	os.WriteFile(tp.p.Path(store.VolumesDir, "data", "keep"), []byte("content"), 0o644)
	a0, b0, side0 := updRecord(tp, "a"), updRecord(tp, "b"), updRecord(tp, "side")
	uid := tp.status().UID

	next := updNext(tp)
	next.Metadata.Labels["tier"] = "api"
	next.Spec.Containers[0].Env[0].Value = "two"
	if gen := updApply(tp, next, nil); gen != 2 {
		t.Errorf("generation = %d, want 2", gen)
	}
	st := updObserved(tp, 2)
	if got := updWaitLines(tp, "data", "a", 2); got != "one\ntwo\n" {
		t.Errorf("a recorded %q, want one then two: the new instance runs the new definition", got)
	}
	a1 := st.Containers["a"]
	if a1.ContainerID == a0.ContainerID || !a1.Running {
		t.Errorf("a after the update: %+v, want a new running instance", a1)
	}
	for name, r0 := range map[string]store.Instance{"b": b0, "side": side0} {
		if r := st.Containers[name]; r.ContainerID != r0.ContainerID || r.PID != r0.PID || !r.Running {
			t.Errorf("%s after the update: %s pid %d, want it untouched: %s pid %d (UPD-009)", name, r.ContainerID, r.PID, r0.ContainerID, r0.PID)
		}
	}
	if st.Pod.Status.UID != uid || st.Pod.Metadata.Labels["tier"] != "api" {
		t.Errorf("uid %s labels %v, want uid %s kept and the new labels stored", st.Pod.Status.UID, st.Pod.Metadata.Labels, uid)
	}
	if tp.volume("data", "keep") != "content" {
		t.Errorf("the emptyDir volume lost its content (UPD-009)")
	}
	cs := tp.container("a")
	if cs.RestartCount != 1 || cs.LastState.Terminated == nil || cs.LastState.Terminated.ExitCode == nil || *cs.LastState.Terminated.ExitCode != 3 {
		t.Errorf("a status %+v, want restartCount 1 and lastState exit 3", cs)
	}
	// UPD-007: stop signal, then the new instance at once (no back-off, default 10 s).
	sig := tp.find("SignalSent", "a")
	restarting := tp.find("ContainerRestarting", "a")
	starts := tp.all("ContainerStarted", "a")
	if sig.Signal == nil || sig.Signal.Name != "SIGTERM" || len(starts) != 2 {
		t.Fatalf("signal %+v, %d starts; events:\n%s", sig.Signal, len(starts), tp.timeline())
	}
	if !strings.Contains(restarting.Message, "no back-off") || a1.Consecutive != 0 || a1.NextStart != nil {
		t.Errorf("restart %q, back-off counter %d, next start %v: want the new instance at once, the back-off untouched", restarting.Message, a1.Consecutive, a1.NextStart)
	}
	if n := len(tp.all("PolicyFired", "")); n != 0 {
		t.Errorf("the replaced instance's end fired the exit policy (UPD-008)")
	}
	tp.stop(nil, false)
	final := tp.wait(120 * time.Second)
	if final.Phase != v1alpha1.PodSucceeded {
		t.Errorf("phase %s exitCode %v decidedBy %s, want Succeeded: the replaced instance's exit 3 does not count (UPD-008); events:\n%s", final.Phase, final.ExitCode, final.DecidedBy, tp.timeline())
	}
}

func TestUPD011_RestartContainerResizePolicyRestartsOnResourceChange(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: upd-resize-restart}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "`+looper("app")+`"]
    resources: {limits: {memory: 64Mi}}
    resizePolicy: [{resourceName: memory, restartPolicy: RestartContainer}]
`)
	updWaitLines(tp, "data", "app", 1)
	before := updRecord(tp, "app")
	next := updNext(tp)
	next.Spec.Containers[0].Resources.Limits["memory"] = "80Mi"
	updApply(tp, next, nil)
	st := updObserved(tp, 2)
	after := st.Containers["app"]
	if after.ContainerID == before.ContainerID || !after.Running {
		t.Fatalf("app %+v, want a new instance (UPD-011); events:\n%s", after, tp.timeline())
	}
	if got := cgroupValue(t, st.Pod.Status.UID, after.ContainerID, "memory", "memory.limit_in_bytes", "memory.max"); got != "83886080" {
		t.Errorf("new instance's memory limit = %s, want 83886080 (80Mi)", got)
	}
}

func TestUPD012_UpdateDuringBackOffTakesEffectAtTheNextStartOnce(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: upd-backoff}
spec:
  restartPolicy: Always
  restartBackoff: {initialSeconds: 2}
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    env: [{name: V, value: one}]
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "echo $V >> /data/app; exit 1"]
`)
	tp.waitEvent(60*time.Second, "the back-off", func(ev runtimev1.Event) bool { return ev.Type == "ContainerRestarting" && ev.Container == "app" })
	next := updNext(tp)
	next.Spec.Containers[0].Env[0].Value = "two"
	updApply(tp, next, nil)
	// Waiting containers take the change at their next start: nothing to wait for.
	updObserved(tp, 2)
	if got := updWaitLines(tp, "data", "app", 2); !strings.HasPrefix(got, "one\ntwo\n") {
		t.Errorf("runs %q, want one then two", got)
	}
	if n := len(tp.all("SignalSent", "app")); n != 0 {
		t.Errorf("%d signals: a waiting container must not be restarted by the update (UPD-012)", n)
	}
	if n := len(tp.all("ContainerStarted", "app")); n > 2 {
		t.Errorf("%d starts within the second back-off: an extra restart happened", n)
	}
}

// gateBackend blocks the first creation of one container until released.
type gateBackend struct {
	*backend.Backend
	container string
	*firstCall
}

func (g *gateBackend) CreateInstance(ctx context.Context, pod *engine.PodInfo, sb json.RawMessage, req *engine.InstanceRequest) (int, error) {
	if req.Container.Name == g.container {
		g.wait()
	}
	return g.Backend.CreateInstance(ctx, pod, sb, req)
}

// firstCall holds the first caller of wait until open; entered is closed when that call
// arrives. Later calls, and every call after open, pass.
type firstCall struct {
	entered, release chan struct{}
	first, released  sync.Once
}

func newFirstCall() *firstCall {
	return &firstCall{entered: make(chan struct{}), release: make(chan struct{})}
}

func (f *firstCall) wait() {
	held := false
	f.first.Do(func() { held = true })
	if held {
		close(f.entered)
		<-f.release
	}
}

func (f *firstCall) open() { f.released.Do(func() { close(f.release) }) }

func TestUPD012_UpdateWhileAnInstanceIsBeingCreatedRecreatesItUnstarted(t *testing.T) {
	t.Parallel()
	gb := &gateBackend{container: "app", firstCall: newFirstCall()}
	tp := startPodWith(t, `
metadata: {name: upd-creating}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    env: [{name: V, value: one}]
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "`+looper("app")+`"]
`, func(b *backend.Backend) engine.Backend { gb.Backend = b; return gb })
	select {
	case <-gb.entered:
	case <-time.After(120 * time.Second):
		gb.open()
		t.Fatal("the instance was never created")
	}
	next := updNext(tp)
	next.Spec.Containers[0].Env[0].Value = "two"
	updApply(tp, next, nil)
	gb.open()
	st := updObserved(tp, 2)
	if got := updWaitLines(tp, "data", "app", 1); got != "two\n" {
		t.Errorf("runs %q, want only two: the instance created from the old definition must never start", got)
	}
	if c, s := len(tp.all("ContainerCreated", "app")), len(tp.all("ContainerStarted", "app")); c != 1 || s != 1 {
		t.Errorf("%d created, %d started, want exactly one instance; events:\n%s", c, s, tp.timeline())
	}
	if cs := tp.container("app"); cs.RestartCount != 0 || !st.Containers["app"].Running {
		t.Errorf("app %+v, want restartCount 0 and running", cs)
	}
}

func TestUPD013_StartedInitContainerIsNotRerun(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: upd-init}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  volumes: [{name: data, emptyDir: {}}]
  initContainers:
  - {name: setup, image: IMAGE, command: [sh, -c, "echo setup >> /data/init"], volumeMounts: [{name: data, mountPath: /data}]}
  containers:
  - name: app
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "`+looper("app")+`"]
`)
	updWaitLines(tp, "data", "app", 1)
	app0 := updRecord(tp, "app")
	next := updNext(tp)
	next.Spec.InitContainers[0].Command = []string{"sh", "-c", "echo again >> /data/init"}
	updApply(tp, next, nil)
	st := updObserved(tp, 2)
	time.Sleep(500 * time.Millisecond)
	if got := tp.volume("data", "init"); got != "setup\n" {
		t.Errorf("init output %q, want it run once with the old command (UPD-013)", got)
	}
	if n := len(tp.all("ContainerStarted", "setup")); n != 1 {
		t.Errorf("setup started %d times, want 1", n)
	}
	if r := updRecord(tp, "app"); r.ContainerID != app0.ContainerID {
		t.Errorf("app was restarted by an init container change")
	}
	if got := strings.Join(st.Pod.Spec.InitContainers[0].Command, " "); !strings.Contains(got, "again") {
		t.Errorf("stored manifest command %q, want the new one", got)
	}
}

func TestUPD003_UPD004_UPD005_RefusedAndEmptyUpdatesChangeNothing(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: upd-refuse}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 30
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "echo $V >> /data/app; trap 'sleep 1; exit 0' TERM; while true; do sleep 0.05; done"]
`)
	updWaitLines(tp, "data", "app", 1)
	// The process writes its line before the engine records it Started and Ready; snapshot the
	// pod only once those transitions are on disk, so the comparison sees only the updates.
	tp.waitEvent(60*time.Second, "app ready", func(ev runtimev1.Event) bool { return ev.Type == "ContainerReady" && ev.Container == "app" })
	before, _ := tp.p.ReadState()
	ctx := context.Background()

	bad := updNext(tp)
	bad.Spec.Containers[0].WorkingDir = "/tmp"
	bad.Spec.Containers[0].Env = []v1alpha1.EnvVar{{Name: "V", Value: "x"}}
	_, gen, err := tp.e.Update(ctx, &engine.UpdateRequest{Pod: bad})
	var inv *engine.InvalidUpdateError
	if !errors.As(err, &inv) || gen != 1 {
		t.Fatalf("illegal update: err %v gen %d, want InvalidUpdateError at generation 1", err, gen)
	}
	if len(inv.Errs) != 1 || inv.Errs[0].Rule != "UPD-001" || inv.Errs[0].Field.String() != "spec.containers[0].workingDir" {
		t.Errorf("findings %v, want UPD-001 at spec.containers[0].workingDir (the validator's)", inv.Errs)
	}
	want := validation.ValidatePodUpdate(bad, updNext(tp))
	if len(want) != len(inv.Errs) {
		t.Errorf("engine findings %v differ from ValidatePodUpdate's %v (UPD-003)", inv.Errs, want)
	}

	same := updNext(tp)
	_, gen, err = tp.e.Update(ctx, &engine.UpdateRequest{Pod: same})
	if err != nil || gen != 1 {
		t.Errorf("empty update: err %v gen %d, want accepted at generation 1 (UPD-005)", err, gen)
	}
	after, _ := tp.p.ReadState()
	b1, _ := json.Marshal(before.Pod)
	b2, _ := json.Marshal(after.Pod)
	if string(b1) != string(b2) || after.Containers["app"].PID != before.Containers["app"].PID {
		t.Errorf("the pod changed after a refused and an empty update (UPD-003, UPD-005):\n%s\n%s", b1, b2)
	}

	tp.stop(nil, false)
	change := updNext(tp)
	change.Spec.Containers[0].Env = []v1alpha1.EnvVar{{Name: "V", Value: "x"}}
	if _, _, err := tp.e.Update(ctx, &engine.UpdateRequest{Pod: change}); !errors.Is(err, engine.ErrUpdateConflict) {
		t.Errorf("update of a terminating pod: %v, want ErrUpdateConflict (UPD-004)", err)
	}
	tp.wait(120 * time.Second)
	if _, _, err := tp.e.Update(ctx, &engine.UpdateRequest{Pod: change}); !errors.Is(err, engine.ErrUpdateConflict) {
		t.Errorf("update of a terminal pod: %v, want ErrUpdateConflict (UPD-004)", err)
	}
	if got := tp.volume("data", "app"); got != "\n" {
		t.Errorf("app ran %q, want one instance", got)
	}
}

func TestUPD014_DecreasedDeadlineTakesEffectAtOnce(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: upd-deadline}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  activeDeadlineSeconds: 3600
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "`+looper("app")+`"]
`)
	updWaitLines(tp, "data", "app", 1)
	// The process can write before its ContainerStarted (and status.startedAt) is recorded.
	tp.waitEvent(30*time.Second, "app started", func(ev runtimev1.Event) bool { return ev.Type == "ContainerStarted" })
	started := *tp.status().StartedAt
	time.Sleep(time.Until(started.Add(1500 * time.Millisecond)))
	next := updNext(tp)
	next.Spec.ActiveDeadlineSeconds = ptr(int64(1)) // already passed
	at := time.Now()
	updApply(tp, next, nil)
	st := tp.wait(120 * time.Second)
	ev := tp.find("StopRequested", "")
	if st.Reason != "DeadlineExceeded" || ev.Reason != "DeadlineExceeded" {
		t.Fatalf("reason %s, want DeadlineExceeded; events:\n%s", st.Reason, tp.timeline())
	}
	if d := ev.Time.Sub(at); d > time.Second {
		t.Errorf("deadline fired %s after the update, want at once (UPD-014, TIME-003)", d)
	}
}

func TestUPD015_ChangedGraceIsTheNextStopsBudget(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: upd-grace}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 60
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "echo x >> /data/app; trap '' TERM; while true; do sleep 0.05; done"]
`)
	updWaitLines(tp, "data", "app", 1)
	next := updNext(tp)
	next.Spec.TerminationGracePeriodSeconds = ptr(int64(3))
	updApply(tp, next, nil)
	updObserved(tp, 2)
	tp.stop(nil, false)
	tp.wait(120 * time.Second)
	req := tp.find("StopRequested", "")
	var kill runtimev1.Event
	for _, ev := range tp.all("SignalSent", "app") {
		if ev.Signal != nil && ev.Signal.Name == "SIGKILL" {
			kill = ev
		}
	}
	if kill.Seq == 0 {
		t.Fatalf("no SIGKILL; events:\n%s", tp.timeline())
	}
	// The old budget was 60 s: anything well below it shows the new one was used (the
	// reaction tolerance itself is TIME-002's test, not this one's).
	if d := kill.Time.Sub(req.Time); d < 3*time.Second || d > 20*time.Second {
		t.Errorf("SIGKILL %s after the stop request, want the updated budget of 3 s (UPD-015)", d)
	}
}

// startPodWith is startPod with the backend wrapped by wrap.
func startPodWith(t *testing.T, manifest string, wrap func(*backend.Backend) engine.Backend) *testPod {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	var pod v1alpha1.Pod
	if err := yaml.UnmarshalStrict([]byte(strings.ReplaceAll(manifest, "IMAGE", testImage)), &pod); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	pod.SetDefaults()
	for _, e := range validation.ValidatePod(&pod) {
		if e.Severity() == spec.Error {
			t.Fatalf("manifest does not validate: %s %v", e.Rule, e)
		}
	}
	root := t.TempDir()
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	be := backend.New(root, "runc")
	ctx := context.Background()
	images, err := be.ResolveImages(ctx, &pod.Spec, ".")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.CreatePod(&pod, images, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Options{Pod: p, Backend: wrap(be), Watcher: testReaper, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	tp := &testPod{t: t, root: root, st: s, p: p, be: be, e: e, done: make(chan error, 1), spec: &pod}
	runCtx, cancel := context.WithCancel(ctx)
	go func() { tp.done <- e.Run(runCtx) }()
	t.Cleanup(func() {
		e.Stop(ctx, nil, true)
		select {
		case <-e.Finished():
		case <-time.After(30 * time.Second):
			t.Errorf("pod did not finish after a forced stop")
		}
		cancel()
		if stt, err := p.ReadState(); err == nil {
			info := &engine.PodInfo{Name: p.Name, UID: stt.Pod.Status.UID, Dir: p.Dir, Spec: &stt.Pod.Spec}
			if err := be.RemovePod(ctx, info, stt.Sandbox); err != nil {
				t.Errorf("remove pod: %v", err)
			}
		}
		if err := p.Remove(); err != nil {
			t.Error(err)
		}
	})
	return tp
}

func TestUPD007_IMG004_ChangedImageRestartsFromTheNewImage(t *testing.T) {
	t.Parallel()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	layout := filepath.Join(t.TempDir(), "v2")
	if _, err := ocilayout.Build(context.Background(), layout, ocilayout.BuildOptions{Busybox: true, Cmd: []string{"sh"}, Env: []string{"IMGV=2"}}); err != nil {
		t.Fatal(err)
	}
	tp := startPod(t, `
metadata: {name: upd-image}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "echo v${IMGV:-1} >> /data/app; trap 'exit 0' TERM; while true; do sleep 0.05; done"]
`)
	updWaitLines(tp, "data", "app", 1)
	next := updNext(tp)
	next.Spec.Containers[0].Image = "oci:" + layout
	images, err := tp.be.ResolveImages(context.Background(), &v1alpha1.PodSpec{Containers: next.Spec.Containers}, ".")
	if err != nil {
		t.Fatal(err)
	}
	updApply(tp, next, images)
	st := updObserved(tp, 2)
	if got := updWaitLines(tp, "data", "app", 2); got != "v1\nv2\n" {
		t.Errorf("runs %q, want v1 then v2 (the new image)", got)
	}
	if st.Images["app"] != images["app"] || tp.container("app").Image != "oci:"+layout {
		t.Errorf("resolved image %s, status image %s; want the new image recorded", st.Images["app"], tp.container("app").Image)
	}
}

func TestUPD012_SecondUpdateDuringAReplacementIsAppliedByTheSameRestart(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: upd-twice}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 10
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    env: [{name: V, value: one}]
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "echo $V >> /data/app; trap 'sleep 1; exit 0' TERM; while true; do sleep 0.05; done"]
`)
	updWaitLines(tp, "data", "app", 1)
	next := updNext(tp)
	next.Spec.Containers[0].Env[0].Value = "two"
	updApply(tp, next, nil)
	tp.waitEvent(60*time.Second, "the replacement's signal", func(ev runtimev1.Event) bool { return ev.Type == "SignalSent" && ev.Container == "app" })
	next = updNext(tp)
	next.Spec.Containers[0].Env[0].Value = "three"
	if gen := updApply(tp, next, nil); gen != 3 {
		t.Fatalf("generation %d, want 3", gen)
	}
	updObserved(tp, 3)
	if got := updWaitLines(tp, "data", "app", 2); got != "one\nthree\n" {
		t.Errorf("runs %q, want one then three: one replacement, with the newest definition", got)
	}
	if n := len(tp.all("ContainerStarted", "app")); n != 2 {
		t.Errorf("%d starts, want 2; events:\n%s", n, tp.timeline())
	}
	// The state file (observedGeneration) is written before the event is appended to the log.
	tp.waitEvent(60*time.Second, "UpdateApplied for generation 3", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventUpdateApplied && ev.Generation == 3
	})
	var gens []int64
	for _, ev := range tp.all(runtimev1.EventUpdateApplied, "") {
		gens = append(gens, ev.Generation)
	}
	if len(gens) != 2 || gens[0] != 2 || gens[1] != 3 {
		t.Errorf("UpdateApplied generations %v, want [2 3]", gens)
	}
}
