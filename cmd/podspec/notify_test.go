package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/reference/store"
	"podspec.dev/podspec/schema"
)

// runnersOf lists live notification-runner processes working on root.
func runnersOf(root string) []string {
	return processes(func(cmdline string) bool {
		return strings.Contains(cmdline, "notification-runner") && strings.Contains(cmdline, root)
	})
}

// notificationStatus reads `notification status` and checks it against the schema.
func notificationStatus(t *testing.T, c cmdline, name string) v1alpha1.NotificationStatus {
	t.Helper()
	out, code := c.run("notification", "status", name)
	if code != 0 {
		t.Fatalf("notification status %s: exit %d", name, code)
	}
	var raw any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("status output %q: %v", out, err)
	}
	if errs := schema.Validate("NotificationStatus", raw); len(errs) > 0 {
		t.Errorf("notification status does not validate against NotificationStatus: %v\n%s", errs, out)
	}
	var st v1alpha1.NotificationStatus
	json.Unmarshal([]byte(out), &st)
	return st
}

func notificationResults(t *testing.T, c cmdline, name string) []v1alpha1.PodNotificationRecord {
	t.Helper()
	out, code := c.run("notification", "results", name)
	if code != 0 {
		t.Fatalf("notification results %s: exit %d", name, code)
	}
	var raw []any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("results output %q: %v", out, err)
	}
	for _, r := range raw {
		if errs := schema.Validate("PodNotificationRecord", r); len(errs) > 0 {
			t.Errorf("a record does not validate against PodNotificationRecord: %v\n%s", errs, out)
		}
	}
	var recs []v1alpha1.PodNotificationRecord
	json.Unmarshal([]byte(out), &recs)
	return recs
}

func waitNotificationFinal(t *testing.T, c cmdline, name string) v1alpha1.NotificationStatus {
	t.Helper()
	var st v1alpha1.NotificationStatus
	waitFor(t, "notification "+name+" final", 120*time.Second, func() bool {
		st = notificationStatus(t, c, name)
		return st.Phase == v1alpha1.NotificationSucceeded || st.Phase == v1alpha1.NotificationFailed || st.Phase == v1alpha1.NotificationSkipped
	})
	return st
}

// TestNOTIF_VerbsFollowTheContract drives the notifier profile through the command line with
// real supervisors: `notify POD NOTIFIER` and `notify FILE` (selector), `notification status`
// (a NotificationStatus), `notification results` (PodNotificationRecord array), `notification
// rm`, and the contract's exit codes for unknown pods, notifiers and Notifications (4), an
// invalid Notification (1, NOTIF-001 finding, nothing created), a name in use (5) and usage (2).
func TestNOTIF_VerbsFollowTheContract(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "pod.yaml")
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  terminationGracePeriodSeconds: 3
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: "oci:`+layout+`"
    command: [sh, -c, "trap 'echo hup >> /data/hup' HUP; while true; do sleep 0.05; done"]
    volumeMounts: [{name: data, mountPath: /data}]
    notifiers:
    - {name: mark, timeoutSeconds: 120, action: {exec: {command: [sh, -c, "echo x >> /data/mark"]}}}
    - {name: reload, action: {signal: SIGHUP}}
`), 0o644)
	if _, code := c.run("run", "--detach", manifest); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	t.Cleanup(func() {
		c.run("rm", "--force", "web")
		if left := runnersOf(c.root); len(left) > 0 {
			t.Errorf("notification runners left running: %v", left)
		}
	})
	waitFor(t, "app Started", 90*time.Second, func() bool {
		st := readState(t, c.root, "web")
		return len(st.Pod.Status.ContainerStatuses) == 1 && st.Pod.Status.ContainerStatuses[0].Started
	})

	out, code := c.run("notify", "web", "mark")
	if code != 0 {
		t.Fatalf("notify web mark: exit %d", code)
	}
	var created v1alpha1.Notification
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Metadata.Name == "" || created.Status == nil {
		t.Fatalf("notify printed %q (%v)", out, err)
	}
	if created.Spec.Notifier != "mark" || len(created.Spec.Pods) != 1 || created.Spec.Pods[0] != "web" || created.Spec.TargetPolicy != v1alpha1.PreExistingPods {
		t.Errorf("shorthand Notification spec = %+v", created.Spec)
	}
	name := created.Metadata.Name
	st := waitNotificationFinal(t, c, name)
	if st.Phase != v1alpha1.NotificationSucceeded || st.Targets != 1 || st.Succeeded != 1 || st.FinishedAt == nil {
		t.Errorf("status = %+v, want Succeeded with one target", st)
	}
	recs := notificationResults(t, c, name)
	if len(recs) != 1 || recs[0].Pod != "web" || recs[0].Phase != v1alpha1.NotificationSucceeded || len(recs[0].Containers) != 1 {
		t.Fatalf("results = %+v", recs)
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, "pods", "web", store.VolumesDir, "data", "mark")); strings.TrimSpace(string(b)) != "x" {
		t.Errorf("the exec action ran %q times, want once", b)
	}

	// notify FILE with a selector and a signal notifier.
	nfile := filepath.Join(dir, "n.yaml")
	os.WriteFile(nfile, []byte("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: reload-web}\nspec:\n  notifier: reload\n  selector: {matchLabels: {app: web}}\n"), 0o644)
	if _, code := c.run("notify", nfile); code != 0 {
		t.Fatalf("notify FILE: exit %d", code)
	}
	if st := waitNotificationFinal(t, c, "reload-web"); st.Phase != v1alpha1.NotificationSucceeded {
		t.Errorf("reload-web status = %+v", st)
	}
	waitFor(t, "the trapped SIGHUP", 30*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(c.root, "pods", "web", store.VolumesDir, "data", "hup"))
		return err == nil
	})
	notifierEvents := 0
	for _, ev := range events(t, c, "web") {
		if ev.Type == "NotifierFinished" && ev.Result == "Succeeded" {
			notifierEvents++
		}
	}
	if notifierEvents != 2 {
		t.Errorf("%d NotifierFinished Succeeded events, want 2", notifierEvents)
	}

	// Exit codes.
	if _, code := c.run("notify", nfile); code != 5 {
		t.Errorf("notify with a name in use: exit %d, want 5 (Conflict)", code)
	}
	if _, code := c.run("notify", "nopod", "mark"); code != 4 {
		t.Errorf("notify to an unknown pod: exit %d, want 4", code)
	}
	if _, code := c.run("notify", "web", "undeclared"); code != 4 {
		t.Errorf("notify of a notifier the pod does not declare: exit %d, want 4", code)
	}
	for _, verb := range []string{"status", "results", "rm"} {
		if _, code := c.run("notification", verb, "nothing"); code != 4 {
			t.Errorf("notification %s of an unknown name: exit %d, want 4", verb, code)
		}
	}
	if _, code := c.run("notify", "a", "b", "c"); code != 2 {
		t.Errorf("notify with three arguments: exit %d, want 2", code)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: bad}\nspec:\n  notifier: mark\n  pods: [web]\n  selector: {matchLabels: {app: web}}\n"), 0o644)
	if _, code := c.run("notify", bad); code != 1 {
		t.Errorf("invalid Notification: exit %d, want 1", code)
	}
	if _, code := c.run("notification", "status", "bad"); code != 4 {
		t.Errorf("an invalid Notification was created (status exit %d)", code)
	}

	// rm, then the name is free again.
	if _, code := c.run("notification", "rm", "reload-web"); code != 0 {
		t.Errorf("notification rm: exit %d", code)
	}
	if _, code := c.run("notification", "status", "reload-web"); code != 4 {
		t.Errorf("status after rm: exit %d, want 4", code)
	}
	if _, code := c.run("notification", "rm", name); code != 0 {
		t.Errorf("notification rm %s: exit %d", name, code)
	}
}

// TestNTF012_LostSupervisorGivesExitStatusLost: the pod's supervisor is killed while an exec
// action runs; the supervisor that adopts the pod records the delivery Failed ExitStatusLost
// and does not run it again.
func TestNTF012_LostSupervisorGivesExitStatusLost(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "pod.yaml")
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: lost}
spec:
  terminationGracePeriodSeconds: 3
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: "oci:`+layout+`"
    command: [sleep, "300"]
    volumeMounts: [{name: data, mountPath: /data}]
    notifiers:
    - name: slow
      timeoutSeconds: 120
      action: {exec: {command: [sh, -c, "echo x >> /data/runs; sleep 3"]}}
`), 0o644)
	if _, code := c.run("run", "--detach", manifest); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	t.Cleanup(func() {
		c.run("rm", "--force", "lost")
		if left := runnersOf(c.root); len(left) > 0 {
			t.Errorf("notification runners left running: %v", left)
		}
	})
	waitFor(t, "app Started", 90*time.Second, func() bool {
		st := readState(t, c.root, "lost")
		return st.Pod.Status.ContainerStatuses[0].Started
	})
	out, code := c.run("notify", "lost", "slow")
	if code != 0 {
		t.Fatalf("notify: exit %d", code)
	}
	var created v1alpha1.Notification
	json.Unmarshal([]byte(out), &created)
	runs := filepath.Join(c.root, "pods", "lost", store.VolumesDir, "data", "runs")
	waitFor(t, "the action to start", 90*time.Second, func() bool {
		_, err := os.Stat(runs)
		return err == nil
	})
	sup := readState(t, c.root, "lost").Supervisor
	if err := syscall.Kill(sup.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the supervisor to die", 30*time.Second, func() bool { return procstat.StartTime(sup.PID) != sup.StartTime })
	if _, code := c.run("status", "lost"); code != 0 {
		t.Fatalf("status: exit %d", code)
	}
	st := waitNotificationFinal(t, c, created.Metadata.Name)
	recs := notificationResults(t, c, created.Metadata.Name)
	if st.Phase != v1alpha1.NotificationFailed || len(recs) != 1 || len(recs[0].Containers) != 1 {
		t.Fatalf("status %+v, results %+v", st, recs)
	}
	if d := recs[0].Containers[0]; d.Phase != v1alpha1.NotificationFailed || d.Reason != "ExitStatusLost" {
		t.Errorf("delivery = %+v, want Failed ExitStatusLost", d)
	}
	if len(st.Failures) != 1 || st.Failures[0].Reason != "ExitStatusLost" {
		t.Errorf("failures = %+v", st.Failures)
	}
	time.Sleep(4 * time.Second)
	if b, _ := os.ReadFile(runs); strings.Count(string(b), "x") != 1 {
		t.Errorf("the action ran %d times, want once", strings.Count(string(b), "x"))
	}
	c.run("notification", "rm", created.Metadata.Name)
}
