package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/store"
)

// mountSmallRoot mounts a tmpfs of size bytes as the test's state root; Cleanup unmounts it
// after every pod in it was removed (registered first, so it runs last).
func mountSmallRoot(t *testing.T, c cmdline, size int) {
	t.Helper()
	if err := os.MkdirAll(c.root, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", c.root, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Fatalf("mount a tmpfs root: %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(c.root, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", c.root, err)
		}
	})
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// freeBytes is what is left of the file system holding path.
func freeBytes(path string) uint64 {
	var fs unix.Statfs_t
	if unix.Statfs(path, &fs) != nil {
		return 0
	}
	return fs.Bavail * uint64(fs.Bsize)
}

// errorCode is the contract error code in the last JSON line of stderr.
func errorCode(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	var rep struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	json.Unmarshal([]byte(lines[len(lines)-1]), &rep)
	return rep.Error.Code
}

// TestSUP009_FullStateDiskLosesNoEventAndSaysSo holds the runtime to docs/runtime.md's promise on a
// full disk (issue #15, class 1): a container fills the state root (a small tmpfs) with log
// output; the stop request is carried out but reported IO, because it could not be written;
// status says that the state is behind; once there is room again everything held in memory is
// written, in order — one StopRequested, one PersistenceFailed, PodFinished last, no gap, no
// repeat — and events --follow ends. A run on the full disk fails IO and leaves nothing.
func TestSUP009_FullStateDiskLosesNoEventAndSaysSo(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	mountSmallRoot(t, c, 8<<20)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "full.yaml")
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: full}
spec:
  restartPolicy: Never
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sh, -c, "while true; do yes 0123456789abcdef; sleep 0.05; done"]}
`), 0o644)
	t.Cleanup(func() { c.run("rm", "--force", "full") })
	if _, code := c.run("run", "--detach", manifest); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	waitFor(t, "the container to fill the state root", 60*time.Second, func() bool { return freeBytes(c.root) < 4096 })

	_, stderr, code := c.runErr("stop", "--grace-period", "1", "full")
	if code != 3 || errorCode(stderr) != "IO" || !strings.Contains(stderr, "no space left on device") {
		t.Fatalf("stop on a full disk: exit %d, stderr %s; want 3 (IO) saying there is no space", code, stderr)
	}
	_, stderr, code = c.runErr("status", "full")
	if code != 0 || !strings.Contains(stderr, "cannot write the pod's state and events") {
		t.Errorf("status on a full disk: exit %d, stderr %q; want the status and a warning that it is behind", code, stderr)
	}
	// The stop goes on in memory: SIGKILL at the end of its 1 s budget. Then make room, as an
	// operator would, by emptying the container's log.
	time.Sleep(2 * time.Second)
	if err := os.Truncate(filepath.Join(c.root, "pods", "full", store.LogsDir, "app", "0.log"), 0); err != nil {
		t.Fatal(err)
	}
	out, code := c.run("wait", "--timeout", "60s", "full")
	if code != 0 || !strings.Contains(out, `"phase":"Succeeded"`) {
		t.Fatalf("wait once there is room: exit %d, %s", code, out)
	}
	follow := make(chan int, 1)
	go func() { _, code := c.run("events", "--follow", "full"); follow <- code }()
	select {
	case code := <-follow:
		if code != 0 {
			t.Errorf("events --follow: exit %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("events --follow did not end after PodFinished")
	}
	evs := events(t, c, "full")
	count := map[runtimev1.EventType]int{}
	for i, ev := range evs {
		count[ev.Type]++
		if ev.Seq != int64(i+1) {
			t.Errorf("event %d (%s) has seq %d: want 1, 2, 3 … without gaps or repeats", i, ev.Type, ev.Seq)
		}
	}
	if count[runtimev1.EventStopRequested] != 1 || count[store.EventPersistenceFailed] != 1 || count[runtimev1.EventPodFinished] != 1 || evs[len(evs)-1].Type != runtimev1.EventPodFinished {
		t.Errorf("events %v, last %s: want one StopRequested, one PersistenceFailed, PodFinished last", count, evs[len(evs)-1].Type)
	}
	if _, stderr, _ := c.runErr("status", "full"); strings.Contains(stderr, "cannot write") {
		t.Errorf("status still warns once everything was written: %s", stderr)
	}
	if _, code := c.run("rm", "full"); code != 0 {
		t.Fatalf("rm: exit %d", code)
	}

	// A run on a full disk: IO in both forms, and nothing of the pod remains.
	filler := filepath.Join(c.root, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for b := make([]byte, 64<<10); ; {
		if _, err := f.Write(b); err != nil {
			break
		}
	}
	f.Close()
	defer os.Remove(filler)
	_, stderr, code = c.runErr("run", "--detach", manifest)
	if code != 3 || errorCode(stderr) != "IO" {
		t.Errorf("run --detach on a full disk: exit %d, %s; want 3 (IO)", code, stderr)
	}
	_, stderr, code = c.runErr("run", manifest)
	if code != 125 || errorCode(stderr) != "IO" {
		t.Errorf("run in the foreground on a full disk: exit %d, %s; want 125 with code IO", code, stderr)
	}
	// An image not unpacked yet has no room either.
	other := filepath.Join(dir, "other")
	if _, err := ocilayout.Build(context.Background(), other, ocilayout.BuildOptions{Busybox: true, Cmd: []string{"true"}}); err != nil {
		t.Fatal(err)
	}
	otherManifest := filepath.Join(dir, "other.yaml")
	os.WriteFile(otherManifest, []byte(strings.ReplaceAll(readFile(t, manifest), layout, other)), 0o644)
	_, stderr, code = c.runErr("run", "--detach", otherManifest)
	if code != 3 || errorCode(stderr) != "IO" {
		t.Errorf("run --detach of a new image on a full disk: exit %d, %s; want 3 (IO)", code, stderr)
	}
	if out, _ := c.run("list"); strings.TrimSpace(out) != "[]" {
		t.Errorf("a run that failed on a full disk left %s", out)
	}
	if ents, _ := os.ReadDir(filepath.Join(c.root, "pods")); len(ents) != 0 {
		t.Errorf("a run that failed on a full disk left %v in pods/", ents)
	}
}

// TestUnreadableStateIsListedStoppedAndRemoved holds the runtime to docs/runtime.md's promise
// on a corrupt state file (issue #15, class 5): the pod is listed (phase Unknown, its UID from
// the events log), the verbs that need the state say it is unreadable (IO) and what still
// works, its events can be read; with its supervisor alive a stop repairs the file; without one
// stop kills its containers and rm --force removes everything, and the name is free again.
func TestUnreadableStateIsListedStoppedAndRemoved(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "pod.yaml")
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: broken}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]}
`), 0o644)
	start := func(name string) string {
		t.Helper()
		t.Cleanup(func() { c.run("rm", "--force", name) })
		if _, code := c.run("run", "--detach", "--name", name, manifest); code != 0 {
			t.Fatalf("run --detach: exit %d", code)
		}
		waitFor(t, name+" running", 60*time.Second, func() bool {
			return readState(t, c.root, name).Pod.Status.ContainerStatuses[0].State.Running != nil
		})
		return readState(t, c.root, name).Pod.Status.UID
	}
	corrupt := func(name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(c.root, "pods", name, store.StateFile), []byte(`{"pod": {"metadata": `), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// A live supervisor: it runs the pod from memory.
	uid := start("broken")
	corrupt("broken")
	out, code := c.run("list")
	var list []listEntry
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || len(list) != 1 ||
		list[0].Name != "broken" || list[0].Phase != phaseUnknown || list[0].UID != uid || list[0].Error == "" || list[0].CreatedAt.IsZero() {
		t.Fatalf("list with an unreadable state: exit %d, %s; want broken listed Unknown with its UID %s", code, out, uid)
	}
	for _, verb := range [][]string{{"status", "broken"}, {"wait", "broken"}, {"logs", "broken", "app"}} {
		_, stderr, code := c.runErr(verb...)
		if code != 3 || errorCode(stderr) != "IO" || !strings.Contains(stderr, "unreadable") || !strings.Contains(stderr, "rm --force broken") {
			t.Errorf("%s of an unreadable pod: exit %d, %s; want 3 (IO) saying so and what still works", verb[0], code, stderr)
		}
	}
	if evs := events(t, c, "broken"); len(evs) < 2 || evs[0].Type != runtimev1.EventPodCreated {
		t.Errorf("events of an unreadable pod: %v", evs)
	}
	if _, code := c.run("rm", "broken"); code != 5 {
		t.Errorf("rm without --force of an unreadable pod: exit %d, want 5 (Conflict)", code)
	}
	if _, code := c.run("stop", "broken"); code != 0 {
		t.Fatalf("stop of an unreadable pod with a live supervisor: exit %d", code)
	}
	out, code = c.run("wait", "--timeout", "30s", "broken")
	if code != 0 || !strings.Contains(out, `"phase":"Succeeded"`) {
		t.Fatalf("wait after the stop (the supervisor writes the state again): exit %d, %s", code, out)
	}
	if _, code := c.run("rm", "broken"); code != 0 {
		t.Fatalf("rm: exit %d", code)
	}

	// No supervisor: nothing can adopt the pod.
	start("orphan")
	if _, code := c.run("crash", "orphan"); code != 0 {
		t.Fatalf("crash: exit %d", code)
	}
	corrupt("orphan")
	_, stderr, code := c.runErr("stop", "orphan")
	if code != 0 || !strings.Contains(stderr, "SIGKILL") {
		t.Errorf("stop of an unreadable, unsupervised pod: exit %d, %s; want its containers killed", code, stderr)
	}
	if _, code := c.run("rm", "--force", "orphan"); code != 0 {
		t.Fatalf("rm --force of an unreadable, unsupervised pod: exit %d", code)
	}
	if left, _ := exec.Command("runc", "--root", filepath.Join(c.root, "runc"), "list", "-q").Output(); strings.TrimSpace(string(left)) != "" {
		t.Errorf("OCI containers left: %s", left)
	}
	if m := mountsUnder(t, filepath.Join(c.root, "pods")); len(m) > 0 {
		t.Errorf("mounts left: %v", m)
	}
	if _, err := os.Stat(filepath.Join(c.root, "pods", "orphan")); !os.IsNotExist(err) {
		t.Errorf("the pod directory is still there: %v", err)
	}
	if out, _ := c.run("list"); strings.TrimSpace(out) != "[]" {
		t.Errorf("list after rm --force: %s", out)
	}
	start("orphan") // the name is free again
}

// TestSUP010_KilledRunLeavesAWholePodOrNothing SIGKILLs `podspec run --detach` at each step of pod
// creation (PODSPEC_FAULT_PAUSE) and holds the runtime to docs/runtime.md's promise on a killed
// command (issue #15, class 6): before the pod directory is renamed into place the next command
// finds nothing and the name is free; after it, the pod exists and the next verb that touches
// it starts its supervisor. No supervisor is left waiting, no half-made directory stays.
func TestSUP010_KilledRunLeavesAWholePodOrNothing(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: killed}
spec:
  terminationGracePeriodSeconds: 2
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sleep, "600"]}
`), 0o644)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"validated", "resolved", "staged", "volumes", "created", "started"} {
		name := "killed-" + step
		t.Cleanup(func() { c.run("rm", "--force", name) })
		cmd := exec.Command(self, "--root", c.root, "--error-format", "json", "run", "--detach", "--name", name, manifest)
		cmd.Env = append(os.Environ(), "PODSPEC_TEST_AS_CLI=1", faultPauseEnv+"="+step)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		paused := make(chan string, 1)
		go func() {
			b := make([]byte, 4096)
			var all []byte
			for {
				n, err := stderr.Read(b)
				all = append(all, b[:n]...)
				if strings.Contains(string(all), "paused at "+step) || err != nil {
					paused <- string(all)
					return
				}
			}
		}()
		select {
		case out := <-paused:
			if !strings.Contains(out, "paused at "+step) {
				t.Fatalf("run did not reach step %s: %s", step, out)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("run did not reach step %s", step)
		}
		cmd.Process.Kill()
		cmd.Wait()

		_, code := c.run("status", name)
		exists := step == "created" || step == "started"
		switch {
		case !exists && code != 4:
			t.Errorf("killed at %s: status exit %d, want 4 (no pod)", step, code)
		case exists && code != 0:
			t.Errorf("killed at %s: status exit %d, want the pod", step, code)
		}
		out, _ := c.run("list")
		if listed := strings.Contains(out, `"`+name+`"`); listed != exists {
			t.Errorf("killed at %s: list %s", step, out)
		}
		if exists {
			// The verb started the supervisor the killed command did not (or did) start.
			waitFor(t, name+" running", 60*time.Second, func() bool {
				st := readState(t, c.root, name)
				return st.Supervisor.PID != 0 && st.Pod.Status.ContainerStatuses[0].State.Running != nil
			})
		} else if _, code := c.run("run", "--detach", "--name", name, manifest); code != 0 {
			t.Errorf("killed at %s: the name is taken (run again: exit %d)", step, code)
		}
		if _, code := c.run("rm", "--force", name); code != 0 {
			t.Errorf("killed at %s: rm --force: exit %d", step, code)
		}
	}
	waitFor(t, "no supervisor left", 20*time.Second, func() bool { return len(supervisorsOf(c.root)) == 0 })
	ents, _ := os.ReadDir(filepath.Join(c.root, "pods"))
	for _, e := range ents {
		t.Errorf("left in pods/: %s", e.Name())
	}
}
