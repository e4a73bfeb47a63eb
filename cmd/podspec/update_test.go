package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/schema"
)

// runStderr runs a runtime verb and also returns its standard error.
func (c cmdline) runStderr(args ...string) (string, string, int) {
	c.t.Helper()
	return c.runRaw(append([]string{"--root", c.root, "--error-format", "json"}, args...)...)
}

// runRaw runs the podspec command line as given.
func (c cmdline) runRaw(args ...string) (string, string, int) {
	c.t.Helper()
	self, err := os.Executable()
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), "PODSPEC_TEST_AS_CLI=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

type findingKey struct {
	Rule, Path string
	Line, Col  int
}

func keys(fs []finding.Finding) []findingKey {
	var out []findingKey
	for _, f := range fs {
		out = append(out, findingKey{f.Rule, f.Path, f.Pos.Line, f.Pos.Column})
	}
	return out
}

// TestUPD003_UpdateVerbRefusesLikeTheValidatorAndLeavesThePodAlone runs `podspec update`
// against a running pod: an illegal update is refused with the findings of `podspec validate
// --update-from` and changes nothing; a legal one restarts only the changed container, prints
// the PodStatus and reaches observedGeneration 2; a terminal pod is a Conflict.
func TestUPD003_UpdateVerbRefusesLikeTheValidatorAndLeavesThePodAlone(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	dir := t.TempDir()
	pod := func(stopSignal, greeting string) string {
		return `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: upd}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
  - name: web
    image: "oci:` + layout + `"
    env: [{name: GREETING, value: ` + greeting + `}]
    command: [sh, -c, "echo $GREETING; trap 'exit 0' TERM; while true; do sleep 0.05; done"]
  - name: worker
    image: "oci:` + layout + `"
    stopSignal: ` + stopSignal + `
    command: [sh, -c, "trap 'exit 0' TERM INT; while true; do sleep 0.05; done"]
`
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	orig := write("pod.yaml", pod("SIGTERM", "hello"))
	if _, code := c.run("run", "--detach", orig); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	t.Cleanup(func() { c.run("rm", "--force", "upd") })
	waitFor(t, "both containers running", 120*time.Second, func() bool {
		st := readState(t, c.root, "upd")
		return st.Containers["web"].Running && st.Containers["worker"].Running
	})

	// Illegal: the stop signal is immutable (and the env change alongside must not apply).
	bad := write("bad.yaml", pod("SIGINT", "bye"))
	before := readState(t, c.root, "upd")
	out, stderr, code := c.runStderr("update", "upd", bad)
	if code != 1 || out != "" {
		t.Fatalf("illegal update: exit %d, stdout %q, want 1 and nothing printed", code, out)
	}
	var report struct {
		Error struct {
			Code     string            `json:"code"`
			Findings []finding.Finding `json:"findings"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(stderr)), &report); err != nil || report.Error.Code != "InvalidManifest" {
		t.Fatalf("error report %q (%v), want InvalidManifest with findings", stderr, err)
	}
	vout, _, _ := c.runRaw("validate", "-o", "json", "--update-from", orig, bad)
	var vrep struct {
		Results []struct {
			Findings []finding.Finding `json:"findings"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(vout), &vrep); err != nil || len(vrep.Results) != 1 {
		t.Fatalf("validate --update-from printed %q", vout)
	}
	got, want := keys(report.Error.Findings), keys(vrep.Results[0].Findings)
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("update findings %v, want the validator's %v (UPD-003)", got, want)
	}
	time.Sleep(300 * time.Millisecond)
	after := readState(t, c.root, "upd")
	b1, _ := json.Marshal(before.Pod)
	b2, _ := json.Marshal(after.Pod)
	if string(b1) != string(b2) || !reflect.DeepEqual(before.Containers, after.Containers) {
		t.Errorf("the pod changed after a refused update (UPD-003):\n%s\n%s", b1, b2)
	}

	// Legal: only web's env changes.
	good := write("good.yaml", pod("SIGTERM", "bye"))
	out, code = c.run("update", "upd", good)
	if code != 0 {
		t.Fatalf("update: exit %d", code)
	}
	var generic any
	if err := json.Unmarshal([]byte(out), &generic); err != nil {
		t.Fatalf("update printed %q", out)
	}
	for _, e := range schema.Validate("PodStatus", generic) {
		t.Errorf("update output does not validate as PodStatus: %v", e)
	}
	waitFor(t, "observedGeneration 2", 120*time.Second, func() bool {
		return readState(t, c.root, "upd").Pod.Status.ObservedGeneration == 2
	})
	st := readState(t, c.root, "upd")
	if st.Pod.Metadata.Generation != 2 || st.Pod.Spec.Containers[0].Env[0].Value != "bye" {
		t.Errorf("generation %d, env %v: want the new manifest stored as generation 2", st.Pod.Metadata.Generation, st.Pod.Spec.Containers[0].Env)
	}
	if st.Containers["worker"].PID != before.Containers["worker"].PID || st.Containers["web"].ContainerID == before.Containers["web"].ContainerID {
		t.Errorf("worker %+v web %+v: want only web restarted", st.Containers["worker"], st.Containers["web"])
	}
	waitFor(t, "the new instance's output", 60*time.Second, func() bool {
		logs, _ := c.run("logs", "upd", "web")
		return logs == "bye\n"
	})
	if logs, _ := c.run("logs", "--previous", "upd", "web"); logs != "hello\n" {
		t.Errorf("logs --previous = %q, want the replaced instance's output", logs)
	}
	applied := false
	for _, ev := range events(t, c, "upd") {
		applied = applied || (ev.Type == "UpdateApplied" && ev.Generation == 2)
	}
	if !applied {
		t.Errorf("no UpdateApplied event for generation 2")
	}

	// Terminal: Conflict.
	c.run("stop", "upd")
	if _, code := c.run("wait", "--timeout", "30s", "upd"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	if _, code := c.run("update", "upd", write("late.yaml", pod("SIGTERM", "late"))); code != 5 {
		t.Errorf("update of a terminal pod: exit %d, want 5 (Conflict, UPD-004)", code)
	}
	if _, code := c.run("update", "nosuch", good); code != 4 {
		t.Errorf("update of an unknown pod: exit %d, want 4", code)
	}
	final := readState(t, c.root, "upd")
	if final.Pod.Status.Phase != v1alpha1.PodSucceeded {
		t.Errorf("phase %s, want Succeeded", final.Pod.Status.Phase)
	}
}

// TestUPD006_UpdateRestartResumesAfterSupervisorLoss kills the supervisor while an update is
// replacing a container that ignores its stop signal. The adopting supervisor finishes the
// replacement: the new instance runs the new definition, observedGeneration reaches the new
// generation, and the replaced instance's lost exit does not fail the pod.
func TestUPD006_UpdateRestartResumesAfterSupervisorLoss(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	dir := t.TempDir()
	write := func(name, greeting string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: upd-adopt}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 4
  containers:
  - name: web
    image: "oci:`+layout+`"
    env: [{name: GREETING, value: `+greeting+`}]
    command: [sh, -c, "echo $GREETING; trap '' TERM; while true; do sleep 0.05; done"]
`), 0o644)
		return p
	}
	if _, code := c.run("run", "--detach", write("pod.yaml", "hello")); code != 0 {
		t.Fatal("run --detach")
	}
	t.Cleanup(func() { c.run("rm", "--force", "upd-adopt") })
	waitFor(t, "web running", 120*time.Second, func() bool { return readState(t, c.root, "upd-adopt").Containers["web"].Running })
	before := readState(t, c.root, "upd-adopt")
	if _, code := c.run("update", "upd-adopt", write("new.yaml", "bye")); code != 0 {
		t.Fatal("update")
	}
	waitFor(t, "the replacement's stop signal", 60*time.Second, func() bool {
		for _, ev := range events(t, c, "upd-adopt") {
			if ev.Type == "SignalSent" && ev.Container == "web" {
				return true
			}
		}
		return false
	})
	mid := readState(t, c.root, "upd-adopt")
	if mid.Containers["web"].UpdatePending != 2 || mid.Pod.Status.ObservedGeneration != 1 {
		t.Fatalf("before the supervisor loss: record %+v observedGeneration %d", mid.Containers["web"], mid.Pod.Status.ObservedGeneration)
	}
	if err := syscall.Kill(mid.Supervisor.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the supervisor to die", 10*time.Second, func() bool {
		return procstat.StartTime(mid.Supervisor.PID) != mid.Supervisor.StartTime
	})
	if _, code := c.run("status", "upd-adopt"); code != 0 {
		t.Fatal("status after the supervisor loss")
	}
	waitFor(t, "observedGeneration 2", 120*time.Second, func() bool {
		return readState(t, c.root, "upd-adopt").Pod.Status.ObservedGeneration == 2
	})
	after := readState(t, c.root, "upd-adopt")
	if after.Supervisor.Generation < 2 || after.Containers["web"].ContainerID == before.Containers["web"].ContainerID || after.Containers["web"].UpdatePending != 0 {
		t.Errorf("after adoption: supervisor %+v, web %+v: want a new instance and nothing pending", after.Supervisor, after.Containers["web"])
	}
	waitFor(t, "the new instance's output", 60*time.Second, func() bool {
		logs, _ := c.run("logs", "upd-adopt", "web")
		return logs == "bye\n"
	})
	c.run("stop", "upd-adopt")
	out, code := c.run("wait", "--timeout", "60s", "upd-adopt")
	var st v1alpha1.PodStatus
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Phase != v1alpha1.PodSucceeded {
		t.Errorf("wait: exit %d, %s: want Succeeded (the replaced instance's lost exit does not count, UPD-008)", code, out)
	}
}
