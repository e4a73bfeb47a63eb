package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

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
	if store.ProcessStartTime(app.PID) != app.StartTime {
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
