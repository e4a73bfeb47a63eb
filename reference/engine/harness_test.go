package engine_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/logs"
	"podspec.dev/podspec/reference/reaper"
	"podspec.dev/podspec/reference/store"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation"
)

// The scenario tests run real pods on runc, in this process: the test binary is the child
// subreaper that the supervisor would be. They need root and runc; without them they skip.
var (
	testImage  string // oci:PATH of a busybox image built once
	testReaper *reaper.Reaper
	skipReason string
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	flag.Parse()
	// The scenarios mostly wait (sleeps, probe periods, grace periods), so they run 8 at a
	// time unless -test.parallel says otherwise.
	if f := flag.Lookup("test.parallel"); f != nil && f.Value.String() == f.DefValue {
		flag.Set("test.parallel", "8")
	}
	if os.Geteuid() != 0 {
		skipReason = "scenario tests need root"
	} else if _, err := exec.LookPath("runc"); err != nil {
		skipReason = "scenario tests need runc"
	} else if _, err := os.Stat(ocilayout.BusyboxPath); err != nil {
		skipReason = "scenario tests need busybox-static at " + ocilayout.BusyboxPath
	}
	if skipReason != "" {
		return m.Run()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, err := os.MkdirTemp("", "podspec-engine-image-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	layout := filepath.Join(dir, "busybox")
	// Built before the Reaper starts: ocilayout lists busybox's applets with a plain os/exec
	// child once per process, which the Reaper could reap; later Builds reuse that list.
	if _, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{Busybox: true, Cmd: []string{"sh"}}); err != nil {
		fmt.Fprintln(os.Stderr, "build test image:", err)
		return 1
	}
	testImage = "oci:" + layout
	testReaper, err = reaper.Start(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// testPod is one pod run by an engine in this process.
type testPod struct {
	t    *testing.T
	root string
	st   *store.Store
	p    *store.Pod
	be   *backend.Backend
	e    *engine.Engine // the pod's engine: after adopt, the adopting one
	done chan error
	spec *v1alpha1.Pod
	// cancel ends the Run of e (abandons it, as a lost supervisor).
	cancel context.CancelFunc
}

// startPod runs a pod from a YAML manifest in which IMAGE stands for the busybox test image.
// The test fails if the manifest does not validate. Cleanup force-stops and removes the pod
// and checks that nothing of it is left in runc. tweaks change the engine's options.
func startPod(t *testing.T, manifest string, tweaks ...func(*engine.Options)) *testPod {
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
	opts := engine.Options{Pod: p, Backend: be, Watcher: testReaper, Logf: t.Logf}
	for _, tw := range tweaks {
		tw(&opts)
	}
	e, err := engine.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	tp := &testPod{t: t, root: root, st: s, p: p, be: be, e: e, done: make(chan error, 1), spec: &pod}
	tp.run(ctx)
	t.Cleanup(func() {
		tp.e.Stop(ctx, nil, true)
		select {
		case <-tp.e.Finished():
		case <-time.After(30 * time.Second):
			t.Errorf("pod did not finish after a forced stop")
		}
		tp.cancel()
		stt, err := p.ReadState()
		if err == nil {
			info := &engine.PodInfo{Name: p.Name, UID: stt.Pod.Status.UID, Dir: p.Dir, Spec: &stt.Pod.Spec}
			if err := be.RemovePod(ctx, info, stt.Sandbox); err != nil {
				t.Errorf("remove pod: %v", err)
			}
		}
		if list, err := be.Runtime.List(ctx); err == nil && len(list) > 0 {
			t.Errorf("runc containers left behind: %v", list)
		}
		if err := p.Remove(); err != nil {
			t.Error(err)
		}
	})
	return tp
}

// run runs tp.e until it finishes or tp.cancel abandons it.
func (tp *testPod) run(ctx context.Context) {
	runCtx, cancel := context.WithCancel(ctx)
	tp.cancel = cancel
	done := tp.done
	e := tp.e
	go func() { done <- e.Run(runCtx) }()
}

// adopt loses the pod's supervisor and starts the next one: it abandons the engine (its Run
// ends; the containers run on and the state and events stay as they are), lets lose change
// what is on disk into what a supervisor killed at a chosen moment would have left, then runs
// an adopting engine on the pod with the real backend.
func (tp *testPod) adopt(lose func()) {
	tp.t.Helper()
	tp.cancel()
	select {
	case <-tp.done:
	case <-time.After(30 * time.Second):
		tp.t.Fatal("the abandoned engine's Run did not return")
	}
	if lose != nil {
		lose()
	}
	e, err := engine.New(engine.Options{Pod: tp.p, Backend: tp.be, Watcher: testReaper, Adopt: true, Logf: tp.t.Logf})
	if err != nil {
		tp.t.Fatal(err)
	}
	tp.e, tp.done = e, make(chan error, 1)
	tp.run(context.Background())
}

// wait blocks until the pod is terminal and returns its final status.
func (tp *testPod) wait(timeout time.Duration) *v1alpha1.PodStatus {
	tp.t.Helper()
	select {
	case <-tp.e.Finished():
	case <-time.After(timeout):
		tp.t.Fatalf("pod not terminal after %s; events:\n%s", timeout, tp.timeline())
	}
	st, err := tp.p.ReadState()
	if err != nil {
		tp.t.Fatal(err)
	}
	return st.Pod.Status
}

func (tp *testPod) status() *v1alpha1.PodStatus {
	st, err := tp.p.ReadState()
	if err != nil {
		tp.t.Fatal(err)
	}
	return st.Pod.Status
}

func (tp *testPod) events() []runtimev1.Event {
	evs, err := tp.p.ReadEvents(0)
	if err != nil {
		tp.t.Fatal(err)
	}
	return evs
}

// timeline renders the events for failure messages.
func (tp *testPod) timeline() string {
	var b strings.Builder
	for _, ev := range tp.events() {
		fmt.Fprintf(&b, "  %3d %s %-22s %-8s %-8s", ev.Seq, ev.Time.Format("15:04:05.000"), ev.Type, ev.ContainerKind, ev.Container)
		if ev.ExitCode != nil {
			fmt.Fprintf(&b, " exit=%d", *ev.ExitCode)
		}
		if ev.Signal != nil {
			fmt.Fprintf(&b, " signal=%s", ev.Signal.Name)
		}
		fmt.Fprintf(&b, " %s %s %s %s\n", ev.Reason, ev.Hook, ev.Probe, ev.Message)
	}
	return b.String()
}

// waitEvent waits until an event matching pred is recorded and returns it.
func (tp *testPod) waitEvent(timeout time.Duration, what string, pred func(runtimev1.Event) bool) runtimev1.Event {
	tp.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, ev := range tp.events() {
			if pred(ev) {
				return ev
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	tp.t.Fatalf("no %s after %s; events:\n%s", what, timeout, tp.timeline())
	return runtimev1.Event{}
}

// find returns the first event of a type (and container, if not empty), or fails.
func (tp *testPod) find(typ runtimev1.EventType, container string) runtimev1.Event {
	tp.t.Helper()
	for _, ev := range tp.events() {
		if ev.Type == typ && (container == "" || ev.Container == container) {
			return ev
		}
	}
	tp.t.Fatalf("no %s %s; events:\n%s", typ, container, tp.timeline())
	return runtimev1.Event{}
}

// all returns every event of a type (and container, if not empty).
func (tp *testPod) all(typ runtimev1.EventType, container string) []runtimev1.Event {
	var out []runtimev1.Event
	for _, ev := range tp.events() {
		if ev.Type == typ && (container == "" || ev.Container == container) {
			out = append(out, ev)
		}
	}
	return out
}

// before fails unless event a comes before event b in the log.
func (tp *testPod) before(a, b runtimev1.Event) {
	tp.t.Helper()
	if a.Seq >= b.Seq {
		tp.t.Errorf("want %s %s (seq %d) before %s %s (seq %d); events:\n%s", a.Type, a.Container, a.Seq, b.Type, b.Container, b.Seq, tp.timeline())
	}
}

// volume reads a file of an emptyDir volume.
func (tp *testPod) volume(vol, file string) string {
	b, err := os.ReadFile(tp.p.Path(store.VolumesDir, vol, file))
	if err != nil {
		return ""
	}
	return string(b)
}

// exists reports whether a file of an emptyDir volume exists.
func (tp *testPod) exists(vol, file string) bool {
	_, err := os.Stat(tp.p.Path(store.VolumesDir, vol, file))
	return err == nil
}

func (tp *testPod) stop(grace *int64, force bool) {
	tp.t.Helper()
	if err := tp.e.Stop(context.Background(), grace, force); err != nil {
		tp.t.Fatal(err)
	}
}

func (tp *testPod) container(name string) v1alpha1.ContainerStatus {
	tp.t.Helper()
	s := tp.status()
	for _, c := range append(append(s.InitContainerStatuses, s.ContainerStatuses...), s.DeferContainerStatuses...) {
		if c.Name == name {
			return c
		}
	}
	tp.t.Fatalf("no container %s", name)
	return v1alpha1.ContainerStatus{}
}

func ptr[T any](v T) *T { return &v }

// readLog returns an instance's output as it wrote it, from its log at path.
func readLog(path string) ([]byte, error) {
	lines, err := logs.Read(path, logs.All)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = logs.Write(&b, lines, false)
	return b.Bytes(), err
}
