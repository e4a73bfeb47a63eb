package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/reference/store"
)

// TestDEFER014_DEFER015_SupervisorKilledDuringTheDefersResumesAtTheFirstUnfinishedOne kills
// the pod's supervisor with SIGKILL while the second of three defer containers runs. The next
// verb (wait) starts a supervisor that adopts the pod: the first defer is not run again
// (SUP-007), the second — whose result was lost — runs again as a new instance (DEFER-015),
// the third runs after it, the budget end is the one from before the loss (SUP-008), and the
// defers' logs and statuses are readable afterwards.
func TestDEFER014_DEFER015_SupervisorKilledDuringTheDefersResumesAtTheFirstUnfinishedOne(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	mount := `volumeMounts: [{name: data, mountPath: /data}]`
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: defer-adopt}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 600
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]}
  deferContainers:
  - {name: first, image: "oci:`+layout+`", command: [sh, -c, 'echo first >> /data/order'], `+mount+`}
  - {name: second, image: "oci:`+layout+`", command: [sh, -c, 'echo second-start >> /data/order; echo second-log; sleep 8; echo second-end >> /data/order'], `+mount+`}
  - {name: third, image: "oci:`+layout+`", command: [sh, -c, 'echo third $PODSPEC_TERMINATION_REASON >> /data/order'], `+mount+`}
`), 0o644)
	if _, code := c.run("run", "--detach", manifest); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	t.Cleanup(func() { c.run("rm", "--force", "defer-adopt") })
	waitFor(t, "app running", 180*time.Second, func() bool {
		r := readState(t, c.root, "defer-adopt").Containers["app"]
		return r != nil && r.Running
	})
	if _, code := c.run("stop", "defer-adopt"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	waitFor(t, "the second defer running", 240*time.Second, func() bool {
		r := readState(t, c.root, "defer-adopt").Containers["second"]
		return r != nil && r.Running
	})
	before := readState(t, c.root, "defer-adopt")
	// DEFER-013: the running defer's status is on disk before it ends; the first one's end too.
	if st := before.Pod.Status.DeferContainerStatuses; st[1].State.Running == nil || st[0].State.Terminated == nil || st[2].State.Waiting == nil {
		t.Errorf("persisted defer statuses while the second runs: %+v", st)
	}
	if err := syscall.Kill(before.Supervisor.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the supervisor to die", 10*time.Second, func() bool {
		return procstat.StartTime(before.Supervisor.PID) != before.Supervisor.StartTime
	})
	out, code := c.run("wait", "--timeout", "400s", "defer-adopt")
	if code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	var st v1alpha1.PodStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	after := readState(t, c.root, "defer-adopt")
	if after.Supervisor.Generation < 2 {
		t.Fatalf("no adopting supervisor: %+v", after.Supervisor)
	}
	if !after.Stop.Deadline.Equal(before.Stop.Deadline) {
		t.Errorf("budget end %s after adoption, want %s kept (SUP-008)", after.Stop.Deadline, before.Stop.Deadline)
	}
	p, err := mustStore(t, c.root).Pod("defer-adopt")
	if err != nil {
		t.Fatal(err)
	}
	order, _ := os.ReadFile(p.Path(store.VolumesDir, "data", "order"))
	if got, want := string(order), "first\nsecond-start\nsecond-end\nsecond-start\nsecond-end\nthird Stopped\n"; got != want {
		t.Errorf("markers %q, want %q: first once, second again after the lost result, then third", got, want)
	}
	starts := map[string]int{}
	adopted := false
	for _, ev := range events(t, c, "defer-adopt") {
		if ev.Type == runtimev1.EventContainerStarted && ev.ContainerKind == "defer" {
			starts[ev.Container]++
		}
		adopted = adopted || ev.Type == store.EventSupervisorAdopted
	}
	if starts["first"] != 1 || starts["second"] != 2 || starts["third"] != 1 {
		t.Errorf("defer starts %v, want first 1 (SUP-007), second 2 (DEFER-015), third 1", starts)
	}
	if !adopted {
		t.Error("no SupervisorAdopted event")
	}
	second := st.DeferContainerStatuses[1]
	if second.RestartCount != 1 || second.State.Terminated == nil || second.State.Terminated.Reason != "Completed" {
		t.Errorf("second %+v, want its new instance completed", second)
	}
	if l := second.LastState.Terminated; l == nil || l.Reason != "ExitStatusLost" || l.ExitCode != nil || l.Signal != nil {
		t.Errorf("second lastState %+v, want the lost attempt as ExitStatusLost (SUP-005)", second.LastState)
	}
	var cond *v1alpha1.PodCondition
	for i := range st.Conditions {
		if st.Conditions[i].Type == v1alpha1.PodDeferCompleted {
			cond = &st.Conditions[i]
		}
	}
	if cond == nil || cond.Status != v1alpha1.ConditionTrue {
		t.Errorf("DeferCompleted %+v, want True: the lost attempt does not count as a failure", cond)
	}
	if st.Phase != v1alpha1.PodSucceeded || st.Reason != "Stopped" {
		t.Errorf("phase %s reason %s, want Succeeded / Stopped", st.Phase, st.Reason)
	}
	if logs, _ := c.run("logs", "defer-adopt", "second"); logs != "second-log\n" {
		t.Errorf("logs of second = %q, want its last instance's output", logs)
	}
	if logs, _ := c.run("logs", "--previous", "defer-adopt", "second"); logs != "second-log\n" {
		t.Errorf("logs --previous of second = %q, want the lost instance's output", logs)
	}
	if _, code := c.run("rm", "defer-adopt"); code != 0 {
		t.Fatalf("rm: exit %d", code)
	}
	left, _ := exec.Command("runc", "--root", filepath.Join(c.root, "runc"), "list", "-q").Output()
	if strings.TrimSpace(string(left)) != "" {
		t.Errorf("runc containers left: %s", left)
	}
}

// TestIMG002_IMG003_MissingDeferImageFailsCreation checks that defer images are resolved when
// the pod is created: a defer whose image does not exist fails `run` with an error naming the
// image, and nothing of the pod is left.
func TestIMG002_IMG003_MissingDeferImageFailsCreation(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	missing := filepath.Join(t.TempDir(), "no-such-layout")
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: defer-noimage}
spec:
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sh, -c, "exit 0"]}
  deferContainers:
  - {name: cleanup, image: "oci:`+missing+`:latest", command: [sh, -c, "exit 0"]}
`), 0o644)
	self, _ := os.Executable()
	cmd := exec.Command(self, "--root", c.root, "--error-format", "json", "run", "--detach", manifest)
	cmd.Env = append(os.Environ(), "PODSPEC_TEST_AS_CLI=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("run with a missing defer image: %v, want exit 1", err)
	}
	if !strings.Contains(stderr.String(), "cleanup") || !strings.Contains(stderr.String(), missing) {
		t.Errorf("error %q does not name the defer container and its image", stderr.String())
	}
	if out, _ := c.run("list"); strings.TrimSpace(out) != "[]" {
		t.Errorf("list after a failed creation = %q, want []", out)
	}
}

func mustStore(t *testing.T, root string) *store.Store {
	t.Helper()
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
