package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/notify"
	"podspec.dev/podspec/reference/store"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation"
)

// ntfEnv is one runtime root with pods run by engines in this process and Notifications
// delivered by in-process runners that call each pod's engine.Notifier directly (the
// supervisor's socket is the only part left out).
type ntfEnv struct {
	t    *testing.T
	root string
	st   *store.Store
	ns   *notify.Store
	be   *backend.Backend
	mu   sync.Mutex
	pods map[string]*testPod
	ntfs map[string]*engine.Notifier
	// wrap, when set, puts a test backend in front of be for the pods' engines.
	wrap func(*backend.Backend) engine.Backend
}

func newNtfEnv(t *testing.T) *ntfEnv {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	root := t.TempDir()
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := notify.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return &ntfEnv{t: t, root: root, st: s, ns: ns, be: backend.New(root, "runc"),
		pods: map[string]*testPod{}, ntfs: map[string]*engine.Notifier{}}
}

// start runs a pod (IMAGE stands for the busybox test image). With validate false the
// manifest skips the validator (to show what the runtime does with declarations the validator
// forbids). Cleanup force-stops and removes the pod and checks runc has nothing left of it.
func (env *ntfEnv) start(manifest string, validate bool) *testPod {
	t := env.t
	t.Helper()
	var pod v1alpha1.Pod
	if err := yaml.UnmarshalStrict([]byte(strings.ReplaceAll(manifest, "IMAGE", testImage)), &pod); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	pod.SetDefaults()
	if validate {
		for _, e := range validation.ValidatePod(&pod) {
			if e.Severity() == spec.Error {
				t.Fatalf("manifest does not validate: %s %v", e.Rule, e)
			}
		}
	}
	ctx := context.Background()
	images, err := env.be.ResolveImages(ctx, &pod.Spec, ".")
	if err != nil {
		t.Fatal(err)
	}
	p, err := env.st.CreatePod(&pod, images, nil)
	if err != nil {
		t.Fatal(err)
	}
	var be engine.Backend = env.be
	if env.wrap != nil {
		be = env.wrap(env.be)
	}
	e, err := engine.New(engine.Options{Pod: p, Backend: be, Watcher: testReaper, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	tp := &testPod{t: t, root: env.root, st: env.st, p: p, be: env.be, e: e, done: make(chan error, 1), spec: &pod}
	runCtx, cancel := context.WithCancel(ctx)
	ntf := engine.NewNotifier(e)
	env.mu.Lock()
	env.pods[p.Name] = tp
	env.ntfs[p.Name] = ntf
	env.mu.Unlock()
	go func() { tp.done <- e.Run(runCtx) }()
	t.Cleanup(func() {
		e.Stop(ctx, nil, true)
		select {
		case <-e.Finished():
		case <-time.After(60 * time.Second):
			t.Errorf("pod %s did not finish after a forced stop", p.Name)
		}
		ntf.Wait(30 * time.Second)
		cancel()
		if stt, err := p.ReadState(); err == nil {
			info := &engine.PodInfo{Name: p.Name, UID: stt.Pod.Status.UID, Dir: p.Dir, Spec: &stt.Pod.Spec}
			if err := env.be.RemovePod(ctx, info, stt.Sandbox); err != nil {
				t.Errorf("remove pod: %v", err)
			}
		}
		if list, err := env.be.Runtime.List(ctx); err == nil {
			prefix := engine.InstancePrefix(tp.status().UID)
			for _, c := range list {
				if strings.HasPrefix(c.ID, prefix) {
					t.Errorf("runc container left behind: %s", c.ID)
				}
			}
		}
		if err := p.Remove(); err != nil {
			t.Error(err)
		}
	})
	return tp
}

// waitRunning waits until the pod's main containers are Started.
func (env *ntfEnv) waitStarted(tp *testPod, containers ...string) {
	env.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		ok := true
		for _, c := range containers {
			cs := tp.container(c)
			ok = ok && cs.Started && cs.State.Running != nil
		}
		if ok {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	env.t.Fatalf("containers %v not Started; events:\n%s", containers, tp.timeline())
}

// create records a Notification from YAML.
func (env *ntfEnv) create(manifest string) *notify.Object {
	env.t.Helper()
	var n v1alpha1.Notification
	if err := yaml.UnmarshalStrict([]byte(manifest), &n); err != nil {
		env.t.Fatalf("notification: %v", err)
	}
	n.SetDefaults()
	for _, e := range validation.ValidateNotification(&n) {
		if e.Severity() == spec.Error {
			env.t.Fatalf("notification does not validate: %s %v", e.Rule, e)
		}
	}
	o, err := env.ns.Create(&n, env.st)
	if err != nil {
		env.t.Fatal(err)
	}
	return o
}

// deliverFunc hands a turn to the pod's in-process Notifier.
func (env *ntfEnv) deliverFunc(ctx context.Context, p *store.Pod, req *notify.DeliverRequest) error {
	env.mu.Lock()
	n := env.ntfs[p.Name]
	env.mu.Unlock()
	if n == nil {
		return fmt.Errorf("no engine for pod %s", p.Name)
	}
	_, err := n.Notify(ctx, req)
	return err
}

// runner starts the fan-out of a Notification in a goroutine; the returned function stops it
// and waits for it.
func (env *ntfEnv) runner(name string) func() {
	ctx, cancel := context.WithCancel(context.Background())
	r := &notify.Runner{Store: env.ns, Pods: env.st, Name: name, Deliver: env.deliverFunc, Logf: env.t.Logf,
		Poll: 20 * time.Millisecond, Scan: 50 * time.Millisecond}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := r.Run(ctx); err != nil && ctx.Err() == nil {
			env.t.Errorf("runner %s: %v", name, err)
		}
	}()
	stop := func() { cancel(); <-done }
	env.t.Cleanup(stop)
	return stop
}

// status reads a Notification's status.
func (env *ntfEnv) status(name string) *v1alpha1.NotificationStatus {
	env.t.Helper()
	o, err := env.ns.Get(name)
	if err != nil {
		env.t.Fatal(err)
	}
	return o.Notification.Status
}

// final waits until the Notification's status is final and returns it with the records.
func (env *ntfEnv) final(name string, timeout time.Duration) (*v1alpha1.NotificationStatus, map[string]*v1alpha1.PodNotificationRecord) {
	env.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if st := env.status(name); notify.Final(st.Phase) {
			return st, env.records(name)
		}
		time.Sleep(20 * time.Millisecond)
	}
	env.t.Fatalf("notification %s not final after %s: %+v; records: %s", name, timeout, env.status(name), env.dump(name))
	return nil, nil
}

func (env *ntfEnv) records(name string) map[string]*v1alpha1.PodNotificationRecord {
	env.t.Helper()
	recs, err := notify.Records(env.ns.Path(name))
	if err != nil {
		env.t.Fatal(err)
	}
	out := map[string]*v1alpha1.PodNotificationRecord{}
	for _, r := range recs {
		out[r.Pod] = r
	}
	return out
}

func (env *ntfEnv) dump(name string) string {
	recs, _ := notify.Records(env.ns.Path(name))
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "\n  %s %s %s", r.Pod, r.Phase, r.Reason)
		for _, c := range r.Containers {
			fmt.Fprintf(&b, "\n    %s %s %s %s", c.Name, c.Phase, c.Reason, c.Message)
		}
	}
	return b.String()
}

// delivery returns a container's delivery in a record, or fails.
func delivery(t *testing.T, r *v1alpha1.PodNotificationRecord, container string) v1alpha1.ContainerDelivery {
	t.Helper()
	if r == nil {
		t.Fatalf("no pod record")
	}
	for _, c := range r.Containers {
		if c.Name == container {
			return c
		}
	}
	t.Fatalf("no delivery to %s in %+v", container, r)
	return v1alpha1.ContainerDelivery{}
}

// notifyPod creates a Notification of one notifier to one pod, runs it to its end and returns
// the pod record.
func (env *ntfEnv) notifyPod(name, pod, notifier string, timeout time.Duration) *v1alpha1.PodNotificationRecord {
	env.t.Helper()
	env.create(fmt.Sprintf("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: %s}\nspec: {notifier: %s, pods: [%s]}\n", name, notifier, pod))
	env.runner(name)
	_, recs := env.final(name, timeout)
	return recs[pod]
}

// ntfPodHead starts every test pod. Exec notifiers in these tests carry timeoutSeconds: 120
// unless the test is about the timeout: `runc exec` alone can take seconds on a loaded machine,
// and a trivial action must not turn into a HandlerTimeout there.
const ntfPodHead = `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: %s, labels: {app: %s}}
spec:
  terminationGracePeriodSeconds: 3
  restartBackoff: {initialSeconds: 0.2, maxSeconds: 1}
  volumes: [{name: data, emptyDir: {}}]
`

// TestNTF005_ExecRunsInsideTheTargetContainer: the action sees the target container's own
// root filesystem and environment (a file only that container has, and its env variable),
// and the delivery succeeds (NTF-007) with exitCode 0.
func TestNTF005_ExecRunsInsideTheTargetContainer(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "inside", "inside")+`
  containers:
  - name: app
    image: IMAGE
    env: [{name: WHO, value: app-env}]
    command: [sh, -c, "echo app-rootfs > /id; exec sleep 300"]
    volumeMounts: [{name: data, mountPath: /data}]
    notifiers:
    - {name: mark, timeoutSeconds: 120, action: {exec: {command: [sh, -c, "echo $(cat /id) $WHO > /data/seen"]}}}
  - name: other
    image: IMAGE
    env: [{name: WHO, value: other-env}]
    command: [sh, -c, "echo other-rootfs > /id; exec sleep 300"]
    volumeMounts: [{name: data, mountPath: /data}]
`, true)
	env.waitStarted(tp, "app", "other")
	rec := env.notifyPod("mark", "inside", "mark", 90*time.Second)
	d := delivery(t, rec, "app")
	if d.Phase != v1alpha1.NotificationSucceeded || d.ExitCode == nil || *d.ExitCode != 0 {
		t.Fatalf("delivery = %+v, want Succeeded with exitCode 0", d)
	}
	if d.ContainerID != tp.container("app").ContainerID {
		t.Errorf("delivery containerID %s, want the running instance %s", d.ContainerID, tp.container("app").ContainerID)
	}
	if len(rec.Containers) != 1 {
		t.Errorf("record has %d deliveries, want only the declaring container: %+v", len(rec.Containers), rec.Containers)
	}
	if got := strings.TrimSpace(tp.volume("data", "seen")); got != "app-rootfs app-env" {
		t.Errorf("the action saw %q, want the target container's rootfs and env %q", got, "app-rootfs app-env")
	}
	if rec.Phase != v1alpha1.NotificationSucceeded {
		t.Errorf("record phase %s, want Succeeded", rec.Phase)
	}
	st := env.status("mark")
	if st.Phase != v1alpha1.NotificationSucceeded || st.Succeeded != 1 || st.Targets != 1 || st.FinishedAt == nil {
		t.Errorf("status = %+v, want Succeeded with 1 target", st)
	}
	started := tp.find(runtimev1.EventNotifierStarted, "app")
	finished := tp.find(runtimev1.EventNotifierFinished, "app")
	tp.before(started, finished)
	if finished.Result != engine.ResultSucceeded || finished.Notification != "mark" || finished.Notifier != "mark" {
		t.Errorf("NotifierFinished = %+v", finished)
	}
}

// TestNTF007_NonZeroExitIsHandlerFailed: an exec action that exits 7 fails the delivery with
// HandlerFailed and exitCode 7; the pod record and the Notification are Failed, and the
// bounded status lists the failure (NOTIF-013, NOTIF-014, NOTIF-017).
func TestNTF007_NonZeroExitIsHandlerFailed(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "fails", "fails")+`
  containers:
  - name: app
    image: IMAGE
    command: [sleep, "300"]
    notifiers:
    - {name: bad, timeoutSeconds: 120, action: {exec: {command: [sh, -c, "exit 7"]}}}
`, true)
	env.waitStarted(tp, "app")
	rec := env.notifyPod("bad", "fails", "bad", 90*time.Second)
	d := delivery(t, rec, "app")
	if d.Phase != v1alpha1.NotificationFailed || d.Reason != v1alpha1.ReasonHandlerFailed || d.ExitCode == nil || *d.ExitCode != 7 {
		t.Fatalf("delivery = %+v, want Failed HandlerFailed exitCode 7", d)
	}
	st := env.status("bad")
	if rec.Phase != v1alpha1.NotificationFailed || st.Phase != v1alpha1.NotificationFailed || st.Failed != 1 {
		t.Errorf("record %s, status %+v: want both Failed", rec.Phase, st)
	}
	if len(st.Failures) != 1 || st.Failures[0].Container != "app" || st.Failures[0].Reason != v1alpha1.ReasonHandlerFailed {
		t.Errorf("failures = %+v", st.Failures)
	}
}

// procsRunning lists host processes whose command line is exactly argv.
func procsRunning(argv ...string) []string {
	want := strings.Join(argv, "\x00") + "\x00"
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && string(b) == want {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestNTF008_TimeoutKillsTheWholeProcessTree: an action that outlives timeoutSeconds is
// Failed with HandlerTimeout (not before the timeout), and every process it started (two background sleeps) is gone;
// the container itself keeps running.
func TestNTF008_TimeoutKillsTheWholeProcessTree(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "hangs", "hangs")+`
  containers:
  - name: app
    image: IMAGE
    command: [sleep, "300"]
    volumeMounts: [{name: data, mountPath: /data}]
    notifiers:
    - name: hang
      timeoutSeconds: 15
      action: {exec: {command: [sh, -c, "sleep 4711 & sleep 4712 & touch /data/began; wait"]}}
`, true)
	env.waitStarted(tp, "app")
	id := tp.container("app").ContainerID
	begin := time.Now()
	rec := env.notifyPod("hang", "hangs", "hang", 90*time.Second)
	d := delivery(t, rec, "app")
	if d.Phase != v1alpha1.NotificationFailed || d.Reason != v1alpha1.ReasonHandlerTimeout {
		t.Fatalf("delivery = %+v, want Failed HandlerTimeout", d)
	}
	if _, err := os.Stat(tp.p.Path(store.VolumesDir, "data", "began")); err != nil {
		t.Errorf("the action never ran: %v", err)
	}
	if el := d.FinishedAt.Sub(*d.StartedAt); el < 15*time.Second {
		t.Errorf("timed out after %s, before the 15 s timeout", el)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := append(procsRunning("sleep", "4711"), procsRunning("sleep", "4712")...)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the timed-out action still running: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if c := tp.container("app"); c.ContainerID != id || c.State.Running == nil {
		t.Errorf("the container did not keep running: %+v", c)
	}
	t.Logf("timeout recorded %s after creation", time.Since(begin).Round(time.Millisecond))
}

// TestNTF006_SignalIsDeliveredToTheContainer: a signal notifier sends SIGHUP to the
// container's main process, which traps it and writes a marker; the delivery is Succeeded.
func TestNTF006_SignalIsDeliveredToTheContainer(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "hup", "hup")+`
  containers:
  - name: app
    image: IMAGE
    command: [sh, -c, "trap 'echo hup >> /data/hup' HUP; touch /data/ready; while true; do sleep 0.05; done"]
    volumeMounts: [{name: data, mountPath: /data}]
    notifiers:
    - {name: reload, action: {signal: SIGHUP}}
`, true)
	env.waitStarted(tp, "app")
	ntfWaitFile(t, tp, "ready")
	rec := env.notifyPod("reload", "hup", "reload", 90*time.Second)
	if d := delivery(t, rec, "app"); d.Phase != v1alpha1.NotificationSucceeded {
		t.Fatalf("delivery = %+v, want Succeeded", d)
	}
	ntfWaitFile(t, tp, "hup")
	sent := tp.find(runtimev1.EventSignalSent, "app")
	if sent.Signal == nil || sent.Signal.Name != "SIGHUP" {
		t.Errorf("SignalSent = %+v", sent)
	}
	if c := tp.container("app"); c.State.Running == nil || c.RestartCount != 0 {
		t.Errorf("the trapped signal should leave the container running: %+v", c)
	}
}

func ntfWaitFile(t *testing.T, tp *testPod, name string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(tp.p.Path(store.VolumesDir, "data", name)); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no file %s in the data volume; events:\n%s", name, tp.timeline())
}

// TestNTF014_SameNotifierInTwoContainersRunsInBoth: both declaring containers (a main and a
// sidecar) get a delivery; a main container that does not declare it gets none.
func TestNTF014_SameNotifierInTwoContainersRunsInBoth(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "both", "both")+`
  initContainers:
  - name: side
    image: IMAGE
    restartPolicy: Always
    command: [sleep, "300"]
    volumeMounts: [{name: data, mountPath: /data}]
    notifiers:
    - {name: mark, timeoutSeconds: 120, action: {exec: {command: [sh, -c, "touch /data/side"]}}}
  containers:
  - name: app
    image: IMAGE
    command: [sleep, "300"]
    volumeMounts: [{name: data, mountPath: /data}]
    notifiers:
    - {name: mark, timeoutSeconds: 120, action: {exec: {command: [sh, -c, "touch /data/app"]}}}
  - name: quiet
    image: IMAGE
    command: [sleep, "300"]
`, true)
	env.waitStarted(tp, "side", "app", "quiet")
	rec := env.notifyPod("mark", "both", "mark", 90*time.Second)
	for _, c := range []string{"side", "app"} {
		if d := delivery(t, rec, c); d.Phase != v1alpha1.NotificationSucceeded {
			t.Errorf("delivery to %s = %+v, want Succeeded", c, d)
		}
		ntfWaitFile(t, tp, c)
	}
	if len(rec.Containers) != 2 {
		t.Errorf("deliveries = %+v, want exactly side and app", rec.Containers)
	}
}

// TestNTF013_PodThatDiesMidwayIsPodTerminated: the pod is stopped while the action runs; the
// instance ends under it and the delivery is Failed with PodTerminated.
func TestNTF013_PodThatDiesMidwayIsPodTerminated(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "dies", "dies")+`
  containers:
  - name: app
    image: IMAGE
    command: [sleep, "300"]
    volumeMounts: [{name: data, mountPath: /data}]
    notifiers:
    - name: slow
      timeoutSeconds: 120
      action: {exec: {command: [sh, -c, "touch /data/began; exec sleep 4713"]}}
`, true)
	env.waitStarted(tp, "app")
	env.create("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: slow}\nspec: {notifier: slow, pods: [dies]}\n")
	env.runner("slow")
	ntfWaitFile(t, tp, "began")
	grace := int64(1)
	tp.stop(&grace, false)
	_, recs := env.final("slow", 90*time.Second)
	d := delivery(t, recs["dies"], "app")
	if d.Phase != v1alpha1.NotificationFailed || d.Reason != v1alpha1.ReasonPodTerminated {
		t.Fatalf("delivery = %+v, want Failed PodTerminated", d)
	}
	if len(procsRunning("sleep", "4713")) != 0 {
		t.Errorf("the action's process outlived its pod")
	}
}

// TestNTF013_InstanceEndingUnderTheActionIsContainerRestarted: the container's main process
// exits while the action runs (the pod keeps running and restarts it): ContainerRestarted.
func TestNTF013_InstanceEndingUnderTheActionIsContainerRestarted(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "restarts", "restarts")+`
  containers:
  - name: app
    image: IMAGE
    command: [sh, -c, "rm -f /tmp/die; while [ ! -f /tmp/die ]; do sleep 0.05; done; exit 3"]
    notifiers:
    - name: kill
      timeoutSeconds: 60
      action: {exec: {command: [sh, -c, "touch /tmp/die; sleep 4714"]}}
`, true)
	env.waitStarted(tp, "app")
	first := tp.container("app").ContainerID
	rec := env.notifyPod("kill", "restarts", "kill", 90*time.Second)
	d := delivery(t, rec, "app")
	if d.Phase != v1alpha1.NotificationFailed || d.Reason != v1alpha1.ReasonContainerRestarted || d.ContainerID != first {
		t.Fatalf("delivery = %+v, want Failed ContainerRestarted on %s", d, first)
	}
}

// TestNOTIF008_TerminatingPodIsSkipped: a pod that is terminating when its turn comes gets a
// record Skipped PodTerminating and no delivery.
func TestNOTIF008_TerminatingPodIsSkipped(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "leaving", "leaving")+`
  containers:
  - name: app
    image: IMAGE
    command: [sh, -c, "trap '' TERM; while true; do sleep 0.05; done"]
    notifiers:
    - {name: mark, timeoutSeconds: 120, action: {exec: {command: ["true"]}}}
`, true)
	env.waitStarted(tp, "app")
	grace := int64(20)
	tp.stop(&grace, false)
	rec := env.notifyPod("late", "leaving", "mark", 90*time.Second)
	if rec.Phase != v1alpha1.NotificationSkipped || rec.Reason != v1alpha1.ReasonPodTerminating || len(rec.Containers) != 0 {
		t.Fatalf("record = %+v, want Skipped PodTerminating without deliveries", rec)
	}
	if len(tp.all(runtimev1.EventNotifierStarted, "")) != 0 {
		t.Errorf("a delivery started in a terminating pod")
	}
	if st := env.status("late"); st.Phase != v1alpha1.NotificationSkipped || st.Skipped != 1 || len(st.Failures) != 1 || st.Failures[0].Reason != v1alpha1.ReasonPodTerminating {
		t.Errorf("status = %+v", st)
	}
}

// TestNOTIF009_TerminalPodIsSkippedPodTerminated: a target that ended before its turn.
func TestNOTIF009_TerminalPodIsSkippedPodTerminated(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "done", "done")+`
  restartPolicy: Never
  containers:
  - name: app
    image: IMAGE
    command: ["true"]
    notifiers:
    - {name: mark, timeoutSeconds: 120, action: {exec: {command: ["true"]}}}
`, true)
	tp.wait(90 * time.Second)
	rec := env.notifyPod("after", "done", "mark", 90*time.Second)
	if rec.Phase != v1alpha1.NotificationSkipped || rec.Reason != v1alpha1.ReasonPodTerminated {
		t.Fatalf("record = %+v, want Skipped PodTerminated", rec)
	}
}

// TestNOTIF010_NoMatchingContainers: no main container or sidecar declares the notifier: the
// pod record is Skipped NoMatchingContainers — a distinct outcome, never a success.
func TestNOTIF010_NoMatchingContainers(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "plain", "plain")+`
  containers:
  - name: app
    image: IMAGE
    command: [sleep, "300"]
    notifiers:
    - {name: other, timeoutSeconds: 120, action: {exec: {command: ["true"]}}}
`, true)
	env.waitStarted(tp, "app")
	rec := env.notifyPod("nomatch", "plain", "missing", 90*time.Second)
	if rec.Phase != v1alpha1.NotificationSkipped || rec.Reason != v1alpha1.ReasonNoMatchingContainers {
		t.Fatalf("record = %+v, want Skipped NoMatchingContainers", rec)
	}
	if st := env.status("nomatch"); st.Phase != v1alpha1.NotificationSkipped || st.Succeeded != 0 {
		t.Errorf("status = %+v, want Skipped and nothing succeeded", st)
	}
}

// TestNTF009_InitContainersAreNeverTargeted: a regular init container declaring the notifier
// (the validator forbids it, NTF-003; the runtime must not rely on that) is never delivered
// to, even while it runs; the main container that is not Started yet is Skipped NotEligible
// (NOTIF-011). Defer containers cannot declare notifiers at all (no such field).
func TestNTF009_InitContainersAreNeverTargeted(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "initing", "initing")+`
  initContainers:
  - name: setup
    image: IMAGE
    command: [sleep, "300"]
    notifiers:
    - {name: mark, timeoutSeconds: 120, action: {exec: {command: [sh, -c, "touch /data/init"]}}}
    volumeMounts: [{name: data, mountPath: /data}]
  containers:
  - name: app
    image: IMAGE
    command: [sleep, "300"]
    notifiers:
    - {name: mark, timeoutSeconds: 120, action: {exec: {command: ["true"]}}}
`, false)
	tp.waitEvent(90*time.Second, "init started", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventContainerStarted && ev.Container == "setup"
	})
	rec := env.notifyPod("initmark", "initing", "mark", 90*time.Second)
	for _, c := range rec.Containers {
		if c.Name == "setup" {
			t.Fatalf("the init container got a delivery: %+v", c)
		}
	}
	if d := delivery(t, rec, "app"); d.Phase != v1alpha1.NotificationSkipped || d.Reason != v1alpha1.ReasonNotEligible {
		t.Errorf("delivery to app = %+v, want Skipped NotEligible", d)
	}
	if _, err := os.Stat(tp.p.Path(store.VolumesDir, "data", "init")); err == nil {
		t.Errorf("the init container's action ran")
	}
}

// TestNOTIF003_PreExistingPodsAndAllPods: a pod created after a PreExistingPods Notification
// is not targeted; after an AllPods Notification it is (NOTIF-004, NOTIF-012: delivered once
// its container becomes eligible), and the AllPods Notification never completes (NOTIF-015).
func TestNOTIF003_PreExistingPodsAndAllPods(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	pod := func(name string) string {
		return fmt.Sprintf(ntfPodHead, name, "fleet") + `
  containers:
  - name: app
    image: IMAGE
    command: [sleep, "300"]
    volumeMounts: [{name: data, mountPath: /data}]
    notifiers:
    - {name: mark, timeoutSeconds: 120, action: {exec: {command: [sh, -c, "echo x >> /data/marks"]}}}
`
	}
	early := env.start(pod("early"), true)
	env.waitStarted(early, "app")
	env.create("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: pre}\nspec: {notifier: mark, selector: {matchLabels: {app: fleet}}}\n")
	env.create("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: all}\nspec: {notifier: mark, targetPolicy: AllPods, selector: {matchLabels: {app: fleet}}}\n")
	env.runner("pre")
	env.runner("all")
	late := env.start(pod("late"), true)
	_, pre := env.final("pre", 90*time.Second)
	if len(pre) != 1 || pre["early"] == nil || pre["early"].Phase != v1alpha1.NotificationSucceeded {
		t.Fatalf("PreExistingPods records = %s, want only early, Succeeded", env.dump("pre"))
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		recs := env.records("all")
		if r := recs["late"]; r != nil && notify.Final(r.Phase) && recs["early"] != nil && notify.Final(recs["early"].Phase) {
			if d := delivery(t, r, "app"); d.Phase != v1alpha1.NotificationSucceeded {
				t.Fatalf("AllPods delivery to the later pod = %+v", d)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("AllPods did not deliver to both pods: %s", env.dump("all"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := strings.Count(late.volume("data", "marks"), "x"); got != 1 {
		t.Errorf("the later pod was notified %d times, want once (by AllPods only)", got)
	}
	if got := strings.Count(early.volume("data", "marks"), "x"); got != 2 {
		t.Errorf("the early pod was notified %d times, want twice (both Notifications)", got)
	}
	time.Sleep(200 * time.Millisecond)
	if st := env.status("all"); st.Phase != v1alpha1.NotificationRunning || st.FinishedAt != nil || st.Succeeded != 2 || st.Targets != 2 {
		t.Errorf("AllPods status = %+v, want Running with 2 succeeded targets", st)
	}
}

// TestHB017_RacingNotificationsAreSerialisedInCreationOrder: three Notifications of the same
// notifier to one container, their turns handed to the supervisor in reverse creation order,
// run one at a time in creation order: the actions' start/end markers never interleave and
// the deliveries' intervals follow creation order without overlapping.
func TestHB017_RacingNotificationsAreSerialisedInCreationOrder(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "race", "race")+`
  containers:
  - name: app
    image: IMAGE
    command: [sleep, "300"]
    volumeMounts: [{name: data, mountPath: /data}]
    notifiers:
    - {name: step, timeoutSeconds: 120, action: {exec: {command: [sh, -c, "echo start >> /data/log; sleep 0.5; echo end >> /data/log"]}}}
`, true)
	env.waitStarted(tp, "app")
	names := []string{"r1", "r2", "r3"}
	var objs []*notify.Object
	for _, n := range names {
		objs = append(objs, env.create(fmt.Sprintf("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: %s}\nspec: {notifier: step, pods: [race]}\n", n)))
	}
	ctx := context.Background()
	for i := len(objs) - 1; i >= 0; i-- {
		o := objs[i]
		req := &notify.DeliverRequest{Name: o.Notification.Metadata.Name, UID: o.UID, Seq: o.Seq, Notifier: "step",
			Dir: env.ns.Path(o.Notification.Metadata.Name), PodUID: tp.status().UID}
		if err := env.deliverFunc(ctx, tp.p, req); err != nil {
			t.Fatal(err)
		}
	}
	type span struct {
		name       string
		start, end time.Time
	}
	var spans []span
	deadline := time.Now().Add(90 * time.Second)
	for _, n := range names {
		for {
			r := env.records(n)["race"]
			if r != nil && notify.Final(r.Phase) {
				d := delivery(t, r, "app")
				if d.Phase != v1alpha1.NotificationSucceeded {
					t.Fatalf("%s: delivery = %+v", n, d)
				}
				spans = append(spans, span{n, *d.StartedAt, *d.FinishedAt})
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s not final: %s", n, env.dump(n))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for i := 1; i < len(spans); i++ {
		if !spans[i].start.After(spans[i-1].end) {
			t.Errorf("%s started at %s, before %s ended at %s", spans[i].name, spans[i].start.Format("15:04:05.000"), spans[i-1].name, spans[i-1].end.Format("15:04:05.000"))
		}
	}
	if got := strings.Fields(tp.volume("data", "log")); strings.Join(got, " ") != "start end start end start end" {
		t.Errorf("markers %v: the actions overlapped", got)
	}
	var order []string
	for _, ev := range tp.all(runtimev1.EventNotifierStarted, "app") {
		order = append(order, ev.Notification)
	}
	if !sort.StringsAreSorted(order) || len(order) != 3 {
		t.Errorf("NotifierStarted order %v, want creation order r1 r2 r3", order)
	}
}

// TestNTF010_AtMostOncePerContainerInstance: the same turn handed over twice runs the action
// once; a delivery found Running by a new supervisor (its outcome lost) is Failed
// ExitStatusLost and never re-run (NTF-012).
func TestNTF010_AtMostOncePerContainerInstance(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "once", "once")+`
  containers:
  - name: app
    image: IMAGE
    command: [sleep, "300"]
    volumeMounts: [{name: data, mountPath: /data}]
    notifiers:
    - {name: count, timeoutSeconds: 120, action: {exec: {command: [sh, -c, "echo x >> /data/count"]}}}
`, true)
	env.waitStarted(tp, "app")
	o := env.create("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: once}\nspec: {notifier: count, pods: [once]}\n")
	req := &notify.DeliverRequest{Name: "once", UID: o.UID, Seq: o.Seq, Notifier: "count", Dir: env.ns.Path("once"), PodUID: tp.status().UID}
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := env.deliverFunc(ctx, tp.p, req); err != nil {
			t.Fatal(err)
		}
	}
	env.runner("once")
	_, recs := env.final("once", 90*time.Second)
	if d := delivery(t, recs["once"], "app"); d.Phase != v1alpha1.NotificationSucceeded {
		t.Fatalf("delivery = %+v", d)
	}
	// A second supervisor (a fresh Notifier) handed the finished turn again runs nothing.
	again := engine.NewNotifier(tp.e)
	if _, err := again.Notify(ctx, req); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if got := strings.Count(tp.volume("data", "count"), "x"); got != 1 {
		t.Fatalf("the action ran %d times, want once", got)
	}

	// A record left Running by a lost supervisor.
	o2 := env.create("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: lost}\nspec: {notifier: count, pods: [once]}\n")
	path := notify.RecordPath(env.ns.Path("lost"), "once", tp.status().UID)
	rec, err := notify.ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	rec.Phase, rec.StartedAt = v1alpha1.NotificationRunning, &now
	rec.Containers = []v1alpha1.ContainerDelivery{{Name: "app", ContainerID: tp.container("app").ContainerID, Phase: v1alpha1.NotificationRunning, StartedAt: &now}}
	if err := notify.WriteRecord(path, rec); err != nil {
		t.Fatal(err)
	}
	got, err := engine.NewNotifier(tp.e).Notify(ctx, &notify.DeliverRequest{Name: "lost", UID: o2.UID, Seq: o2.Seq, Notifier: "count", Dir: env.ns.Path("lost"), PodUID: tp.status().UID})
	if err != nil {
		t.Fatal(err)
	}
	if d := delivery(t, got, "app"); d.Phase != v1alpha1.NotificationFailed || d.Reason != engine.ReasonExitStatusLost || got.Phase != v1alpha1.NotificationFailed {
		t.Fatalf("record = %+v, want the lost delivery Failed ExitStatusLost", got)
	}
	time.Sleep(300 * time.Millisecond)
	if got := strings.Count(tp.volume("data", "count"), "x"); got != 1 {
		t.Fatalf("the lost delivery was run again (%d runs)", got)
	}
}

// TestNOTIF006_NOTIF007_ParallelismBoundsConcurrentPods: with parallelism 1, the deliveries to three
// pods never overlap and follow the pods' creation order (NOTIF-007).
func TestNOTIF006_NOTIF007_ParallelismBoundsConcurrentPods(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	var pods []*testPod
	for _, n := range []string{"p-c", "p-a", "p-b"} {
		tp := env.start(fmt.Sprintf(ntfPodHead, n, "par")+`
  containers:
  - name: app
    image: IMAGE
    command: [sleep, "300"]
    notifiers:
    - {name: step, timeoutSeconds: 120, action: {exec: {command: [sleep, "0.3"]}}}
`, true)
		pods = append(pods, tp)
	}
	for _, tp := range pods {
		env.waitStarted(tp, "app")
	}
	env.create("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: par}\nspec: {notifier: step, parallelism: 1, selector: {matchLabels: {app: par}}}\n")
	env.runner("par")
	st, recs := env.final("par", 120*time.Second)
	if st.Succeeded != 3 || st.Phase != v1alpha1.NotificationSucceeded {
		t.Fatalf("status = %+v", st)
	}
	var prev *v1alpha1.PodNotificationRecord
	for _, n := range []string{"p-c", "p-a", "p-b"} {
		r := recs[n]
		if prev != nil && !r.StartedAt.After(*prev.FinishedAt) {
			t.Errorf("%s began at %s before %s ended at %s", r.Pod, r.StartedAt.Format("15:04:05.000"), prev.Pod, prev.FinishedAt.Format("15:04:05.000"))
		}
		prev = r
	}
}

// TestNOTIF017_StatusStaysBounded: 25 named pods that do not exist give 25 Skipped
// PodNotFound records (NOTIF-005), counters that add up (NOTIF-016) and exactly 20 failures.
func TestNOTIF017_StatusStaysBounded(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	var names []string
	for i := 0; i < 25; i++ {
		names = append(names, fmt.Sprintf("ghost-%02d", i))
	}
	env.create("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: ghosts}\nspec: {notifier: x, pods: [" + strings.Join(names, ", ") + "]}\n")
	env.runner("ghosts")
	st, recs := env.final("ghosts", 10*time.Second)
	if st.Targets != 25 || st.Skipped != 25 || st.Phase != v1alpha1.NotificationSkipped || len(recs) != 25 {
		t.Fatalf("status = %+v with %d records", st, len(recs))
	}
	if len(st.Failures) != v1alpha1.MaxNotificationFailures {
		t.Errorf("%d failures kept, want %d", len(st.Failures), v1alpha1.MaxNotificationFailures)
	}
	for _, r := range recs {
		if r.Reason != v1alpha1.ReasonPodNotFound {
			t.Errorf("record %s: %s, want PodNotFound", r.Pod, r.Reason)
		}
	}
}

// TestNOTIF019_DeletionLetsRunningDeliveriesFinishAndStartsNoMore: a Notification deleted
// while its action runs in the first pod does not interrupt that action (NOTIF-019), and the
// second pod's turn (parallelism 1) never comes: no delivery of a deleted Notification starts
// (NOTIF-020).
func TestNOTIF019_DeletionLetsRunningDeliveriesFinishAndStartsNoMore(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	var pods []*testPod
	for _, n := range []string{"del-a", "del-b"} {
		tp := env.start(fmt.Sprintf(ntfPodHead, n, "del")+`
  containers:
  - name: app
    image: IMAGE
    command: [sleep, "300"]
    volumeMounts: [{name: data, mountPath: /data}]
    notifiers:
    - {name: slow, timeoutSeconds: 120, action: {exec: {command: [sh, -c, "touch /data/began; sleep 2; touch /data/done"]}}}
`, true)
		pods = append(pods, tp)
	}
	for _, tp := range pods {
		env.waitStarted(tp, "app")
	}
	env.create("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: del}\nspec: {notifier: slow, parallelism: 1, selector: {matchLabels: {app: del}}}\n")
	env.runner("del")
	ntfWaitFile(t, pods[0], "began")
	if err := env.ns.Remove("del"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.ns.Get("del"); err == nil {
		t.Fatalf("the Notification still exists after Remove")
	}
	ntfWaitFile(t, pods[0], "done")
	time.Sleep(3 * time.Second)
	if _, err := os.Stat(pods[1].p.Path(store.VolumesDir, "data", "began")); err == nil {
		t.Errorf("a delivery of the deleted Notification started in the second pod")
	}
	if evs := pods[1].all(runtimev1.EventNotifierStarted, ""); len(evs) != 0 {
		t.Errorf("NotifierStarted in the second pod after deletion: %+v", evs)
	}
}
