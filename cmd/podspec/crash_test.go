package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/reference/store"
)

// TestSUP003_CrashLeavesThePodUnsupervisedUntilTheNextVerb checks the fault-injection verb of
// profile recovery (docs/runtime-interface.md, 4.13): `crash` kills the supervisor and only the
// supervisor, starts no new one, is a no-op when there is nothing to crash, and the next verb
// detects the loss and adopts the pod.
func TestSUP003_CrashLeavesThePodUnsupervisedUntilTheNextVerb(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: crashme}
spec:
  restartPolicy: Never
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]}
`), 0o644)
	if _, code := c.run("crash", "crashme"); code != 4 {
		t.Errorf("crash of an unknown pod: exit %d, want 4 (NotFound)", code)
	}
	if _, code := c.run("run", "--detach", manifest); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	t.Cleanup(func() { c.run("rm", "--force", "crashme") })
	waitFor(t, "app running", 30*time.Second, func() bool {
		r := readState(t, c.root, "crashme").Containers["app"]
		return r != nil && r.Running
	})
	before := readState(t, c.root, "crashme")
	sup, app := before.Supervisor, before.Containers["app"]

	if _, code := c.run("crash", "crashme"); code != 0 {
		t.Fatalf("crash: exit %d", code)
	}
	s, err := store.Open(c.root)
	if err != nil {
		t.Fatal(err)
	}
	pod, err := s.Pod("crashme")
	if err != nil {
		t.Fatal(err)
	}
	if running(sup.PID, sup.StartTime) || pod.SupervisorAlive() {
		t.Fatalf("the supervisor %d is still there after crash returned", sup.PID)
	}
	if procstat.StartTime(app.PID) != app.StartTime {
		t.Fatalf("crash took the container's process %d with the supervisor", app.PID)
	}
	// Nothing adopts the pod until a verb touches it; a second crash has nothing to do.
	time.Sleep(300 * time.Millisecond)
	if _, code := c.run("crash", "crashme"); code != 0 {
		t.Errorf("crash of a pod without a supervisor: exit %d, want 0", code)
	}
	if pod.SupervisorAlive() || readState(t, c.root, "crashme").Supervisor.Generation != 1 {
		t.Fatalf("a supervisor appeared without a verb touching the pod: %+v", readState(t, c.root, "crashme").Supervisor)
	}

	if _, code := c.run("status", "crashme"); code != 0 {
		t.Fatalf("status after the crash: exit %d", code)
	}
	after := readState(t, c.root, "crashme")
	if after.Supervisor.Generation != 2 || !pod.SupervisorAlive() {
		t.Errorf("status did not start an adopting supervisor: %+v", after.Supervisor)
	}
	if r := after.Containers["app"]; r.PID != app.PID || r.ContainerID != app.ContainerID {
		t.Errorf("app after adoption %+v, want process %d and containerID %s", r, app.PID, app.ContainerID)
	}

	if _, code := c.run("stop", "crashme"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	if _, code := c.run("wait", "--timeout", "30s", "crashme"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	finished, _ := os.ReadFile(pod.Path(store.StateFile))
	if _, code := c.run("crash", "crashme"); code != 0 {
		t.Errorf("crash of a terminal pod: exit %d, want 0", code)
	}
	if now, _ := os.ReadFile(pod.Path(store.StateFile)); string(now) != string(finished) {
		t.Errorf("crash changed the state of a terminal pod")
	}
}

// A supervisor lost between the terminal state's write and its events (the last batch, with
// PodFinished) leaves them only in the state, and a terminal pod gets no next supervisor: the
// next verb appends them, once, in their place, and `events --follow` then ends with
// PodFinished. The fault is injected by cutting the events file back to before that batch, as
// the SIGKILL leaves it.
func TestSUP009_TheLastEventsOfATerminalPodSurviveItsSupervisorsLoss(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	manifest := gcPod(t, layout, "lastbatch", `spec:
  restartPolicy: Never
  containers:
  - {name: app, image: "oci:LAYOUT", command: [sh, -c, "exit 3"]}
`)
	runToEnd(t, c, manifest, "lastbatch")
	whole := events(t, c, "lastbatch")
	st := readState(t, c.root, "lastbatch")
	if len(st.UnwrittenEvents) == 0 || whole[len(whole)-1].Type != "PodFinished" {
		t.Fatalf("the terminal state carries %d events and the log ends with %s; want the last batch, ending with PodFinished", len(st.UnwrittenEvents), whole[len(whole)-1].Type)
	}
	path := filepath.Join(c.root, "pods", "lastbatch", store.EventsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	keep := len(whole) - len(st.UnwrittenEvents)
	cut := 0
	for range keep {
		cut += strings.IndexByte(string(data[cut:]), '\n') + 1
	}
	if err := os.WriteFile(path, data[:cut], 0o600); err != nil {
		t.Fatal(err)
	}

	_, stderr, code := c.runErr("status", "lastbatch")
	if code != 0 || !strings.Contains(stderr, fmt.Sprintf("wrote %d event(s)", len(st.UnwrittenEvents))) {
		t.Fatalf("status: exit %d, stderr %q; want it to say it wrote the %d lost events", code, stderr, len(st.UnwrittenEvents))
	}
	got := events(t, c, "lastbatch")
	if len(got) != len(whole) {
		t.Fatalf("%d events after recovery, want the %d written before the loss", len(got), len(whole))
	}
	for i := range whole {
		if got[i].Seq != whole[i].Seq || got[i].Type != whole[i].Type || !got[i].Time.Equal(whole[i].Time) {
			t.Errorf("event %d after recovery %d:%s at %s, want %d:%s at %s", i, got[i].Seq, got[i].Type, got[i].Time, whole[i].Seq, whole[i].Type, whole[i].Time)
		}
	}
	if out, _ := c.run("events", "--follow", "lastbatch"); strings.Count(out, "\n") != len(whole) || !strings.HasSuffix(strings.TrimSpace(out), "}") || !strings.Contains(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:], `"PodFinished"`) {
		t.Errorf("events --follow printed %d lines, want %d ending with PodFinished", strings.Count(out, "\n"), len(whole))
	}
}
