package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/store"
	"podspec.dev/podspec/schema"
)

// The test binary doubles as the podspec binary: with PODSPEC_TEST_AS_CLI=1 it runs the
// command line instead of the tests, so `run` can start supervisors from os.Executable().
func init() {
	if os.Getenv("PODSPEC_TEST_AS_CLI") == "1" {
		os.Exit(run(os.Args[1:]))
	}
}

// cmdline runs the podspec command line (this test binary) with a root; it returns stdout and the
// exit status.
type cmdline struct {
	t    *testing.T
	root string
	dir  string // working directory; empty: the test's
}

func (c cmdline) run(args ...string) (string, int) {
	c.t.Helper()
	out, _, code := c.runErr(args...)
	return out, code
}

// runErr is run that also returns stderr.
func (c cmdline) runErr(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	self, err := os.Executable()
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command(self, append([]string{"--root", c.root, "--error-format", "json"}, args...)...)
	cmd.Env = append(os.Environ(), "PODSPEC_TEST_AS_CLI=1")
	cmd.Dir = c.dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	if code != 0 {
		c.t.Logf("podspec %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String(), errb.String(), code
}

func runtimeTestSetup(t *testing.T) (cmdline, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if _, err := exec.LookPath("runc"); err != nil {
		t.Skip("needs runc")
	}
	if _, err := os.Stat(ocilayout.BusyboxPath); err != nil {
		t.Skip("needs busybox-static")
	}
	dir := t.TempDir()
	layout := filepath.Join(dir, "busybox")
	if _, err := ocilayout.Build(context.Background(), layout, ocilayout.BuildOptions{Busybox: true, Cmd: []string{"sh"}}); err != nil {
		t.Fatal(err)
	}
	c := cmdline{t: t, root: filepath.Join(dir, "root")}
	return c, layout
}

func readState(t *testing.T, root, name string) *store.State {
	t.Helper()
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Pod(name)
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func events(t *testing.T, c cmdline, pod string) []runtimev1.Event {
	t.Helper()
	out, code := c.run("events", pod)
	if code != 0 {
		t.Fatalf("events: exit %d", code)
	}
	var evs []runtimev1.Event
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev runtimev1.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("event line %q: %v", line, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSUP004_KilledSupervisorIsReplacedByOneThatAdoptsThePod kills a pod's supervisor with
// SIGKILL mid-run. The next verb (status) starts a new supervisor that adopts the pod: the
// running container keeps its containerID and process, the one that exited meanwhile is
// recorded ExitStatusLost, and the pod can still be stopped and removed cleanly.
func TestSUP004_KilledSupervisorIsReplacedByOneThatAdoptsThePod(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: adopt}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]}
  - {name: short, image: "oci:`+layout+`", command: [sh, -c, "sleep 2; exit 3"]}
`), 0o644)
	out, code := c.run("run", "--detach", manifest)
	if code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	t.Cleanup(func() { c.run("rm", "--force", "adopt") })
	var created struct{ Name, UID string }
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Name != "adopt" || created.UID == "" {
		t.Fatalf("run --detach printed %q", out)
	}
	waitFor(t, "both containers running", 30*time.Second, func() bool {
		st := readState(t, c.root, "adopt")
		return st.Containers["app"] != nil && st.Containers["app"].Running && st.Containers["short"] != nil && st.Containers["short"].Running
	})
	before := readState(t, c.root, "adopt")
	appPID, appID := before.Containers["app"].PID, before.Containers["app"].ContainerID
	sup := before.Supervisor
	if sup.PID == 0 || sup.StartTime != procstat.StartTime(sup.PID) {
		t.Fatalf("state does not record the live supervisor: %+v", sup)
	}
	if err := syscall.Kill(sup.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the supervisor to die", 10*time.Second, func() bool { return procstat.StartTime(sup.PID) != sup.StartTime })
	// short exits (after 2 s) while nobody supervises the pod.
	time.Sleep(2500 * time.Millisecond)

	out, code = c.run("status", "adopt")
	if code != 0 {
		t.Fatalf("status after the supervisor died: exit %d", code)
	}
	var status v1alpha1.PodStatus
	if err := json.Unmarshal([]byte(out), &status); err != nil {
		t.Fatal(err)
	}
	if status.UID != created.UID {
		t.Errorf("uid changed from %s to %s (ID-005)", created.UID, status.UID)
	}
	// The status the adopting verb prints is the adopter's, not the one the lost supervisor
	// left: short's end, which nobody observed, is already recorded.
	for _, cs := range status.ContainerStatuses {
		if cs.Name == "short" && (cs.State.Terminated == nil || cs.State.Terminated.Reason != "ExitStatusLost") {
			t.Errorf("status printed by the adopting verb shows short %+v, want its lost end (a stale status)", cs.State)
		}
	}
	after := readState(t, c.root, "adopt")
	if after.Supervisor.Generation != 2 || after.Supervisor.PID == sup.PID {
		t.Errorf("supervisor %+v, want generation 2 with a new pid", after.Supervisor)
	}
	if r := after.Containers["app"]; r.PID != appPID || r.ContainerID != appID || !r.Running {
		t.Errorf("app after adoption %+v, want the same process %d and containerID %s still running (SUP-004)", r, appPID, appID)
	}
	for _, cs := range after.Pod.Status.ContainerStatuses {
		if cs.Name != "short" {
			continue
		}
		term := cs.State.Terminated
		if term == nil || term.Reason != "ExitStatusLost" || term.ExitCode != nil || term.Signal != nil {
			t.Errorf("short %+v, want terminated ExitStatusLost with neither exitCode nor signal (SUP-005)", cs.State)
		}
	}
	adopted := false
	for _, ev := range events(t, c, "adopt") {
		adopted = adopted || ev.Type == store.EventSupervisorAdopted
	}
	if !adopted {
		t.Errorf("no SupervisorAdopted event")
	}
	// The adopted pod still stops gracefully and is removed without leftovers.
	if _, code := c.run("stop", "adopt"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	out, code = c.run("wait", "--timeout", "30s", "adopt")
	if code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	json.Unmarshal([]byte(out), &status)
	if status.Phase != v1alpha1.PodFailed || status.DecidedBy != "short" {
		t.Errorf("final phase %s decidedBy %s, want Failed by short: a lost exit counts as a failure", status.Phase, status.DecidedBy)
	}
	if _, code := c.run("rm", "adopt"); code != 0 {
		t.Fatalf("rm: exit %d", code)
	}
	if _, code := c.run("status", "adopt"); code != 4 {
		t.Errorf("status after rm: exit %d, want 4 (NotFound)", code)
	}
	left, _ := exec.Command("runc", "--root", filepath.Join(c.root, "runc"), "list", "-q").Output()
	if strings.TrimSpace(string(left)) != "" {
		t.Errorf("runc containers left: %s", left)
	}
}

// TestRuntimeVerbsFollowTheContract checks the verbs' outputs, error codes and exit statuses
// (docs/runtime-interface.md) on one short pod.
func TestRuntimeVerbsFollowTheContract(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	good := write("good.yaml", `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: verbs}
spec:
  restartPolicy: OnFailure
  restartBackoff: {initialSeconds: 0.05}
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: "oci:`+layout+`"
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "echo run $(cat /data/n 2>/dev/null); if [ -e /data/n ]; then sleep 4; exit 0; fi; echo 1 > /data/n; exit 2"]
`)
	t.Cleanup(func() { c.run("rm", "--force", "verbs") })

	out, code := c.run("version")
	var v struct {
		ContractVersion string   `json:"contractVersion"`
		Profiles        []string `json:"profiles"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.ContractVersion != runtimev1.ContractVersion || v.Profiles[0] != "core" {
		t.Errorf("version: exit %d, %q", code, out)
	}
	if out, code := c.run("list"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("list on an empty root: exit %d, %q, want []", code, out)
	}
	bad := write("bad.yaml", "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: Bad_Name}\nspec: {containers: []}\n")
	if _, code := c.run("run", "--detach", bad); code != 1 {
		t.Errorf("run of an invalid manifest: exit %d, want 1 (InvalidManifest)", code)
	}
	if _, code := c.run("--oci-runtime", "/nonexistent/runc", "run", "--detach", good); code != 6 {
		t.Errorf("run with a missing OCI runtime: exit %d, want 6", code)
	}
	if _, code := c.run("status", "nosuchpod"); code != 4 {
		t.Errorf("status of an unknown pod: exit %d, want 4", code)
	}
	if _, code := c.run("run", "--detach", good); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	if _, code := c.run("run", "--detach", good); code != 5 {
		t.Errorf("second run with the same name: exit %d, want 5 (Conflict)", code)
	}
	if _, code := c.run("rm", "verbs"); code != 5 {
		t.Errorf("rm of a running pod: exit %d, want 5 (Conflict)", code)
	}
	if _, code := c.run("wait", "--timeout", "1ms", "verbs"); code != 7 {
		t.Errorf("wait --timeout 1ms: exit %d, want 7 (Timeout)", code)
	}
	out, code = c.run("wait", "--timeout", "60s", "verbs")
	var st v1alpha1.PodStatus
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Phase != v1alpha1.PodSucceeded {
		t.Fatalf("wait: exit %d, %q", code, out)
	}
	var generic any
	json.Unmarshal([]byte(out), &generic)
	for _, e := range schema.Validate("PodStatus", generic) {
		t.Errorf("status does not validate as PodStatus: %v", e)
	}
	if logs, _ := c.run("logs", "verbs", "app"); logs != "run 1\n" {
		t.Errorf("logs = %q, want the current instance's output", logs)
	}
	if logs, _ := c.run("logs", "--previous", "verbs", "app"); logs != "run\n" {
		t.Errorf("logs --previous = %q, want the first instance's output", logs)
	}
	if _, code := c.run("logs", "verbs", "nosuch"); code != 4 {
		t.Errorf("logs of an unknown container: exit %d, want 4", code)
	}
	evs := events(t, c, "verbs")
	for i, ev := range evs {
		if ev.Seq != int64(i+1) || ev.Pod != "verbs" || ev.PodUID != st.UID || (i > 0 && ev.Time.Before(evs[i-1].Time)) {
			t.Errorf("event %d: %+v breaks seq/pod/time rules", i, ev)
		}
	}
	if evs[0].Type != "PodCreated" || evs[len(evs)-1].Type != "PodFinished" {
		t.Errorf("first %s last %s, want PodCreated … PodFinished", evs[0].Type, evs[len(evs)-1].Type)
	}
	if out, _ := c.run("events", "--follow", "verbs"); strings.Count(out, "\n") != len(evs) {
		t.Errorf("events --follow on a finished pod printed %d lines, want %d", strings.Count(out, "\n"), len(evs))
	}
	if _, code := c.run("stop", "verbs"); code != 0 {
		t.Errorf("stop of a terminal pod: exit %d, want 0", code)
	}
	if out, code := c.run("gc", "--older-than", "1h"); code != 0 || strings.TrimSpace(out) != `{"removed":[]}` {
		t.Errorf("gc --older-than 1h: exit %d, %q", code, out)
	}
	if out, code := c.run("gc"); code != 0 || strings.TrimSpace(out) != `{"removed":["verbs"]}` {
		t.Errorf("gc: exit %d, %q", code, out)
	}
	if out, _ := c.run("list"); strings.TrimSpace(out) != "[]" {
		t.Errorf("list after gc = %q", out)
	}
}

// TestSUP006_StopSequenceResumesAfterSupervisorLoss kills the supervisor while the stop
// sequence waits for a main container that shuts down slowly. The adopting supervisor keeps
// the termination reason and budget end, does not run the main container's preStop hook again
// (it had ended), and goes on with the next step (the sidecar).
func TestSUP006_StopSequenceResumesAfterSupervisorLoss(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: resume}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 30
  initContainers:
  - {name: side, image: "oci:`+layout+`", restartPolicy: Always, command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]}
  containers:
  - name: slow
    image: "oci:`+layout+`"
    command: [sh, -c, "trap 'sleep 3; exit 0' TERM; while true; do sleep 0.05; done"]
    lifecycle: {preStop: {exec: {command: [sh, -c, "true"]}}}
`), 0o644)
	if _, code := c.run("run", "--detach", manifest); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	t.Cleanup(func() { c.run("rm", "--force", "resume") })
	waitFor(t, "slow running", 30*time.Second, func() bool {
		r := readState(t, c.root, "resume").Containers["slow"]
		return r != nil && r.Running
	})
	time.Sleep(200 * time.Millisecond)
	if _, code := c.run("stop", "resume"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	waitFor(t, "the stop signal", 10*time.Second, func() bool {
		return readState(t, c.root, "resume").Containers["slow"].StopReason != ""
	})
	before := readState(t, c.root, "resume")
	if err := syscall.Kill(before.Supervisor.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	out, code := c.run("wait", "--timeout", "60s", "resume")
	if code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	var st v1alpha1.PodStatus
	json.Unmarshal([]byte(out), &st)
	after := readState(t, c.root, "resume")
	if after.Supervisor.Generation < 2 {
		t.Fatalf("no adopting supervisor: %+v", after.Supervisor)
	}
	if st.Reason != "Stopped" || !after.Stop.Deadline.Equal(before.Stop.Deadline) {
		t.Errorf("reason %s deadline %s, want Stopped and the same budget end %s", st.Reason, after.Stop.Deadline, before.Stop.Deadline)
	}
	if st.Phase != v1alpha1.PodSucceeded {
		t.Errorf("phase %s, want Succeeded", st.Phase)
	}
	var slowSignals, slowHooks int
	var slowExit, sideSignal int64
	evs := events(t, c, "resume")
	defer func() {
		if t.Failed() {
			for _, ev := range evs {
				t.Logf("%3d %s %-20s %-6s %s %s", ev.Seq, ev.Time.Format("15:04:05.000"), ev.Type, ev.Container, ev.Reason, ev.Message)
			}
		}
	}()
	for _, ev := range evs {
		switch {
		case ev.Type == runtimev1.EventSignalSent && ev.Container == "slow":
			slowSignals++
			if ev.Signal == nil || ev.Signal.Name != "SIGTERM" {
				t.Errorf("slow got %+v, want only its stop signal (no SIGKILL at the budget end)", ev.Signal)
			}
		case ev.Type == runtimev1.EventHookStarted && ev.Container == "slow":
			slowHooks++
		case ev.Type == runtimev1.EventContainerExited && ev.Container == "slow":
			slowExit = ev.Seq
		case ev.Type == runtimev1.EventSignalSent && ev.Container == "side":
			sideSignal = ev.Seq
		}
	}
	// The stop signal is recorded before it is sent; the adopting supervisor cannot know
	// whether its predecessor sent it, so it sends it once more (at least once).
	if slowSignals < 1 || slowSignals > 2 {
		t.Errorf("slow got %d stop signals, want 1, or 2 when the supervisor died between recording and sending", slowSignals)
	}
	if slowHooks != 1 {
		t.Errorf("slow's preStop hook started %d times, want once: it had ended before the supervisor was lost", slowHooks)
	}
	if slowExit == 0 || sideSignal == 0 || sideSignal < slowExit {
		t.Errorf("slow exited at seq %d, side signalled at seq %d: the resumed sequence must stop the sidecar after the main container", slowExit, sideSignal)
	}
}

// TestSUP004_StartedButUnrecordedInstanceIsAdopted covers a supervisor lost between `runc start`
// and the state write that records ContainerStarted: on disk the instances are only created.
// The adopting supervisor must see that they ran (one still runs the workload, one has already
// exited) and adopt them, not discard the running one and create another: same process and
// containerID, no restart, and the one that ended unobserved is ExitStatusLost.
func TestSUP004_StartedButUnrecordedInstanceIsAdopted(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: late}
spec:
  restartPolicy: Always
  terminationGracePeriodSeconds: 5
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]}
  - {name: short, image: "oci:`+layout+`", command: [sh, -c, "sleep 2; exit 3"]}
`), 0o644)
	if _, code := c.run("run", "--detach", manifest); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	t.Cleanup(func() { c.run("rm", "--force", "late") })
	waitFor(t, "both containers running", 30*time.Second, func() bool {
		st := readState(t, c.root, "late")
		return st.Containers["app"] != nil && st.Containers["app"].Running && st.Containers["short"] != nil && st.Containers["short"].Running
	})
	st := readState(t, c.root, "late")
	sup := st.Supervisor
	if err := syscall.Kill(sup.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the supervisor to die", 10*time.Second, func() bool { return procstat.StartTime(sup.PID) != sup.StartTime })
	// Rewind the state to the moment after ContainerCreated: running, but not recorded so.
	st = readState(t, c.root, "late")
	appPID, appID, shortID := st.Containers["app"].PID, st.Containers["app"].ContainerID, st.Containers["short"].ContainerID
	for _, name := range []string{"app", "short"} {
		st.Containers[name].Running, st.Containers[name].EverRan = false, false
	}
	for i := range st.Pod.Status.ContainerStatuses {
		cs := &st.Pod.Status.ContainerStatuses[i]
		cs.State, cs.Started, cs.Ready = v1alpha1.ContainerState{Waiting: &v1alpha1.ContainerStateWaiting{Reason: "ContainerCreating"}}, false, false
	}
	s, err := store.Open(c.root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Pod("late")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WriteState(st); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond) // short exits while nobody supervises the pod

	if _, code := c.run("status", "late"); code != 0 {
		t.Fatalf("status after the supervisor died: exit %d", code)
	}
	waitFor(t, "short's lost exit recorded and its restart running", 30*time.Second, func() bool {
		r := readState(t, c.root, "late").Containers["short"]
		return r.ContainerID != shortID && r.Running
	})
	after := readState(t, c.root, "late")
	if r := after.Containers["app"]; r.PID != appPID || r.ContainerID != appID || !r.Running {
		t.Errorf("app after adoption %+v, want the same process %d and containerID %s running (SUP-004)", r, appPID, appID)
	}
	for _, cs := range after.Pod.Status.ContainerStatuses {
		switch cs.Name {
		case "app":
			if cs.RestartCount != 0 || cs.State.Running == nil {
				t.Errorf("app %+v: want running with no restart", cs)
			}
		case "short":
			term := cs.LastState.Terminated
			if term == nil || term.ContainerID != shortID || term.Reason != "ExitStatusLost" || term.ExitCode != nil {
				t.Errorf("short's last state %+v, want its first instance %s terminated ExitStatusLost (SUP-005)", cs.LastState, shortID)
			}
		}
	}
	created := map[string]int{}
	for _, ev := range events(t, c, "late") {
		if ev.Type == runtimev1.EventContainerCreated && ev.Container == "app" {
			created[ev.ContainerID]++
		}
	}
	if len(created) != 1 || created[appID] != 1 {
		t.Errorf("app's instances created: %v, want only %s", created, appID)
	}
}

// processes lists "PID: command line" of the live processes whose command line (arguments
// separated by NUL bytes) matches.
func processes(match func(cmdline string) bool) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && match(string(b)) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// supervisorsOf lists the live supervisor processes started for root (`supervise --root ROOT`).
func supervisorsOf(root string) []string {
	return processes(func(cmdline string) bool { return strings.Contains(cmdline, "supervise\x00--root\x00"+root+"\x00") })
}

// TestRunsThatFailLeaveNoSupervisor: run starts the pod's supervisor while it validates the
// manifest, before the pod exists. When the run then fails (an invalid manifest, a name
// already taken, a missing OCI runtime), that supervisor exits without touching anything; the
// pod that holds the name keeps its own.
func TestRunsThatFailLeaveNoSupervisor(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: taken}
spec:
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sleep, "60"]}
`), 0o644)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: Bad_Name}\nspec: {containers: []}\n"), 0o644)
	t.Cleanup(func() { c.run("rm", "--force", "taken") })

	if _, code := c.run("run", "--detach", bad); code != 1 {
		t.Fatalf("run of an invalid manifest: exit %d, want 1", code)
	}
	waitFor(t, "no supervisor after an invalid manifest", 10*time.Second, func() bool { return len(supervisorsOf(c.root)) == 0 })
	if _, code := c.run("run", "--detach", good); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	st := readState(t, c.root, "taken")
	if _, code := c.run("run", "--detach", good); code != 5 {
		t.Fatalf("second run with the same name: exit %d, want 5 (Conflict)", code)
	}
	if _, code := c.run("--oci-runtime", "/nonexistent/runc", "run", "--detach", "--name", "other", good); code != 6 {
		t.Fatalf("run with a missing OCI runtime: exit %d, want 6", code)
	}
	waitFor(t, "only the pod's own supervisor", 10*time.Second, func() bool { return len(supervisorsOf(c.root)) == 1 })
	sups := supervisorsOf(c.root)
	if want := strings.SplitN(sups[0], ":", 2)[0]; want != strconv.Itoa(st.Supervisor.PID) {
		t.Errorf("the live supervisor is %s, want the pod's own (pid %d)", sups[0], st.Supervisor.PID)
	}
	if st2 := readState(t, c.root, "taken"); st2.Supervisor != st.Supervisor || st2.Pod.Status.Phase == v1alpha1.PodFailed {
		t.Errorf("the failed runs changed the pod: supervisor %+v -> %+v, phase %s", st.Supervisor, st2.Supervisor, st2.Pod.Status.Phase)
	}
}

// A relative --root names the same directory for the supervisors podspec starts (in "/") as
// for the command itself: run, and a verb that replaces a killed supervisor, work with one.
func TestRelativeRootReachesTheSupervisor(t *testing.T) {
	_, layout := runtimeTestSetup(t)
	dir := t.TempDir()
	c := cmdline{t: t, root: "state", dir: dir}
	manifest := filepath.Join(dir, "pod.yaml")
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: rel}
spec:
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sleep, "60"]}
`), 0o644)
	t.Cleanup(func() { c.run("rm", "--force", "rel") })
	if out, code := c.run("run", "--detach", "pod.yaml"); code != 0 {
		t.Fatalf("run --detach with --root state: exit %d: %s", code, out)
	}
	abs := filepath.Join(dir, "state")
	waitFor(t, "the container running", 20*time.Second, func() bool {
		return readState(t, abs, "rel").Pod.Status.Phase == v1alpha1.PodRunning
	})
	if _, err := os.Stat(filepath.Join("/state", "pods", "rel")); err == nil {
		t.Error("a supervisor used /state, not the relative root")
	}
	if _, code := c.run("crash", "rel"); code != 0 {
		t.Fatalf("crash: exit %d", code)
	}
	if _, code := c.run("stop", "rel"); code != 0 {
		t.Fatalf("stop after the supervisor was lost: exit %d", code)
	}
	if _, code := c.run("wait", "rel"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	if st := readState(t, abs, "rel"); st.Pod.Status.FinishedAt == nil || st.Supervisor.Generation < 2 {
		t.Errorf("the pod did not finish under a new supervisor: finishedAt %v, generation %d", st.Pod.Status.FinishedAt, st.Supervisor.Generation)
	}
}
