package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/oci"
	"podspec.dev/podspec/spec"
)

// demoOn runs examples/demo.yaml (edited by edit, when not nil) on the OCI runtime oci with
// `run --detach` and `wait`; it returns the final PodStatus, the pod's events, and the root.
func demoOn(t *testing.T, ociRuntime string, edit func(string) string) (map[string]any, string, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if _, err := os.Stat(ocilayout.BusyboxPath); err != nil {
		t.Skip("needs busybox-static")
	}
	dir := t.TempDir()
	if _, err := ocilayout.Build(context.Background(), filepath.Join(dir, "images", "busybox"), ocilayout.BuildOptions{Busybox: true, Tag: "latest"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../examples/demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	manifest := string(b)
	if edit != nil {
		manifest = edit(manifest)
	}
	path := filepath.Join(dir, "demo.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	c := cmdline{t: t, root: filepath.Join(dir, "root")}
	if _, code := c.run("--oci-runtime", ociRuntime, "run", "--detach", path); code != 0 {
		t.Fatalf("run --detach on %s: exit %d", ociRuntime, code)
	}
	t.Cleanup(func() { c.run("--oci-runtime", ociRuntime, "rm", "--force", "demo") })
	out, code := c.run("--oci-runtime", ociRuntime, "wait", "--timeout", "120s", "demo")
	if code != 0 {
		t.Fatalf("wait on %s: exit %d", ociRuntime, code)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("wait: %v: %s", err, out)
	}
	evs, _ := c.run("--oci-runtime", ociRuntime, "events", "demo")
	return st, evs, c.root
}

func needRuntime(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed", name)
	}
	return path
}

// TestDemoPodOnEachOCIRuntime runs the demo pod of the README on every OCI runtime this host
// has (skipping only those not installed): it must succeed on each, as on runc.
func TestDemoPodOnEachOCIRuntime(t *testing.T) {
	succeeds := func(t *testing.T, ociRuntime string, edit func(string) string) string {
		st, evs, root := demoOn(t, ociRuntime, edit)
		if st["phase"] != "Succeeded" {
			t.Fatalf("the demo pod on %s: phase %v, want Succeeded; events:\n%s", ociRuntime, st["phase"], evs)
		}
		return root
	}
	t.Run("runc", func(t *testing.T) { succeeds(t, needRuntime(t, "runc"), nil) })
	t.Run("crun", func(t *testing.T) {
		root := succeeds(t, needRuntime(t, "crun"), nil)
		// On a hybrid-cgroup host whose cgroup2 holds a controller, crun refuses every
		// container unless the controllers are masked; the probe must have found that.
		b, err := os.ReadFile(filepath.Join(root, backend.FeaturesFile))
		if err != nil {
			t.Fatal(err)
		}
		var f oci.Features
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		ctl, _ := os.ReadFile(oci.HybridControllers)
		if hybrid := len(strings.TrimSpace(string(ctl))) > 0; f.MaskHybridControllers != hybrid {
			t.Errorf("crun's features %+v: maskHybridControllers %v, want %v (cgroup2 controllers %q)", f, f.MaskHybridControllers, hybrid, ctl)
		}
	})
	t.Run("runsc", func(t *testing.T) {
		needRuntime(t, "runsc")
		// Without its pids limit: see TestRunscDifferences for why.
		succeeds(t, runscHostNetwork(t), func(m string) string { return strings.Replace(m, ", pids: 32", "", 1) })
	})
}

// runscHostNetwork is scripts/runsc-host-network (runsc --network=host).
func runscHostNetwork(t *testing.T) string {
	p, err := filepath.Abs("../../scripts/runsc-host-network")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunscDifferences shows the limits docs/runtime.md documents for gVisor's runsc: its
// default network mode refuses the pod's network namespace (runsc 20221219 on kernels with a
// per-namespace /proc/sys/net/core/rmem_default), the sandbox's own threads count against a
// container's pids limit, so the demo's db (pids: 32) cannot start its sandbox, and its own
// `wait` verb reports a death by signal N as the exit status 128+N, as the sandbox process
// exits, so it cannot give the reference the signal either.
func TestRunscDifferences(t *testing.T) {
	path := needRuntime(t, "runsc")
	t.Run("default network", func(t *testing.T) {
		out, _ := exec.Command(path, "--version").Output()
		if !strings.Contains(string(out), "0.0~20221219") {
			t.Skipf("documented for runsc 0.0~20221219 only; this is %q", strings.TrimSpace(string(out)))
		}
		st, evs, _ := demoOn(t, path, nil)
		if st["phase"] != "Failed" || !strings.Contains(evs, "cannot run with network enabled in root network namespace") {
			t.Fatalf("the demo pod on %s: phase %v; want Failed with runsc's network refusal; events:\n%s", path, st["phase"], evs)
		}
	})
	t.Run("pids limit", func(t *testing.T) {
		st, evs, _ := demoOn(t, runscHostNetwork(t), nil)
		if st["phase"] != "Failed" || st["exitCode"] != 2.0 || !strings.Contains(evs, `"container":"db","containerKind":"main"`) {
			t.Fatalf("the demo pod on runsc: phase %v, exitCode %v; want db's sandbox to fail under pids: 32 (exit 2); events:\n%s", st["phase"], st["exitCode"], evs)
		}
	})
	t.Run("no update verb", func(t *testing.T) {
		// runsc cannot change a running container's limits, so an update that needs it is
		// refused (Failed), not carried out by a restart UPD-010 forbids; the pod is untouched.
		runscRefusesLiveResize(t, runscHostNetwork(t))
	})
	t.Run("wait verb", func(t *testing.T) {
		// SIGTERM and `exit 143` give the same answer: what runsc wait prints for a signal
		// death is an exit status, so the reference reads no more from it than from the
		// sandbox process's own wait status.
		term := runscWait(t, path, `sleep 1; kill -TERM $$`)
		code := runscWait(t, path, `sleep 1; exit 143`)
		if term != `{"id":"w","exitStatus":143}` || code != term {
			t.Fatalf("runsc wait: %q for SIGTERM, %q for exit 143; want both {\"id\":\"w\",\"exitStatus\":143}", term, code)
		}
	})
}

// runscRefusesLiveResize runs a pod on the runsc wrapper at ociRuntime and updates its running
// container's memory limit: the update must fail with Failed (exit 1) naming UPD-010, and the
// container, the generation and the stored manifest must stay as they were.
func runscRefusesLiveResize(t *testing.T, ociRuntime string) {
	c, layout := runtimeTestSetup(t)
	dir := t.TempDir()
	pod := func(memory string) string {
		return `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: resize}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: "oci:` + layout + `"
    command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.1; done"]
    resources: {limits: {memory: ` + memory + `}}
`
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rt := func(args ...string) []string { return append([]string{"--oci-runtime", ociRuntime}, args...) }
	if _, code := c.run(rt("run", "--detach", write("pod.yaml", pod("64Mi")))...); code != 0 {
		t.Fatalf("run --detach on %s: exit %d", ociRuntime, code)
	}
	t.Cleanup(func() { c.run(rt("rm", "--force", "resize")...) })
	waitFor(t, "app running", 120*time.Second, func() bool { return readState(t, c.root, "resize").Containers["app"].Running })
	before := readState(t, c.root, "resize")

	out, stderr, code := c.runStderr(rt("update", "resize", write("bigger.yaml", pod("96Mi")))...)
	var report struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(stderr)), &report); err != nil {
		t.Fatalf("update: stderr %q is no error report: %v", stderr, err)
	}
	if code != 1 || out != "" || report.Error.Code != string(runtimev1.CodeFailed) || !strings.Contains(report.Error.Message, spec.UPD010) || !strings.Contains(report.Error.Message, "no update verb") {
		t.Fatalf("update of a running container's memory on runsc: exit %d, stdout %q, error %+v; want exit 1, Failed, naming %s and the missing update verb", code, out, report.Error, spec.UPD010)
	}
	t.Logf("update refused: %s", stderr)
	after := readState(t, c.root, "resize")
	b, a := before.Containers["app"], after.Containers["app"]
	if a.ContainerID != b.ContainerID || a.PID != b.PID || !a.Running {
		t.Errorf("app after the refused update: %s pid %d running %v; want %s pid %d untouched", a.ContainerID, a.PID, a.Running, b.ContainerID, b.PID)
	}
	if g := after.Pod.Metadata.Generation; g != before.Pod.Metadata.Generation {
		t.Errorf("generation %d after the refused update, want %d", g, before.Pod.Metadata.Generation)
	}
	if m := after.Pod.Spec.Containers[0].Resources.Limits["memory"]; m != "64Mi" {
		t.Errorf("stored memory limit %s after the refused update, want 64Mi", m)
	}
}

var waits atomic.Int64

// runscWait runs script in a container of runsc at path (network none, a busybox root) and
// returns what `runsc wait` printed for it.
func runscWait(t *testing.T, path, script string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	bb, err := os.ReadFile(ocilayout.BusyboxPath)
	if err != nil {
		t.Skip("needs busybox-static")
	}
	dir := t.TempDir()
	bundle, root := filepath.Join(dir, "bundle"), filepath.Join(dir, "root")
	bin := filepath.Join(bundle, "rootfs", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "busybox"), bb, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"sh", "sleep", "kill"} {
		if err := os.Symlink("busybox", filepath.Join(bin, a)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := map[string]any{
		"ociVersion": "1.0.2",
		"process":    map[string]any{"args": []string{"/bin/sh", "-c", script}, "cwd": "/", "env": []string{"PATH=/bin"}},
		"root":       map[string]any{"path": "rootfs", "readonly": true},
		"linux":      map[string]any{"namespaces": []map[string]string{{"type": "pid"}, {"type": "ipc"}, {"type": "uts"}, {"type": "mount"}}},
	}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(bundle, "config.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	// The output goes to a file, never a pipe: create hands its stdio to the container, which
	// holds it open until it exits.
	rs := func(args ...string) (string, error) {
		f, err := os.CreateTemp(dir, "out")
		if err != nil {
			return "", err
		}
		defer f.Close()
		cmd := exec.Command(path, append([]string{"--root", root, "--network=none"}, args...)...)
		cmd.Stdout, cmd.Stderr = f, f
		err = cmd.Run()
		out, _ := os.ReadFile(f.Name())
		return strings.TrimSpace(string(out)), err
	}
	// The id names the sandbox's control socket, which is host-wide.
	id := fmt.Sprintf("podspec-wait-%d-%d", os.Getpid(), waits.Add(1))
	t.Cleanup(func() { rs("delete", "--force", id) })
	if out, err := rs("create", "--bundle", bundle, id); err != nil {
		t.Fatalf("runsc create: %v: %s", err, out)
	}
	if out, err := rs("start", id); err != nil {
		t.Fatalf("runsc start: %v: %s", err, out)
	}
	out, err := rs("wait", id)
	if err != nil {
		t.Fatalf("runsc wait: %v: %s", err, out)
	}
	return strings.Replace(out, `"`+id+`"`, `"w"`, 1)
}
