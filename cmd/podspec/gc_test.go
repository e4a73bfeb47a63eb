package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/sys/mountinfo"

	"podspec.dev/podspec/reference/oci"
	"podspec.dev/podspec/reference/store"
)

// gcPod writes a pod manifest (LAYOUT stands for the test image's layout path) and returns
// its path.
func gcPod(t *testing.T, layout, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".yaml")
	text := "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: " + name + "}\n" + strings.ReplaceAll(body, "LAYOUT", layout)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runToEnd runs a pod to its terminal phase.
func runToEnd(t *testing.T, c cmdline, manifest, name string) {
	t.Helper()
	if _, code := c.run("run", "--detach", manifest); code != 0 {
		t.Fatalf("run %s: exit %d", name, code)
	}
	t.Cleanup(func() { c.run("rm", "--force", name) })
	if _, code := c.run("wait", "--timeout", "180s", name); code != 0 {
		t.Fatalf("wait %s: exit %d", name, code)
	}
}

func removed(t *testing.T, out string) []string {
	t.Helper()
	var r struct {
		Removed []string `json:"removed"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("gc printed %q: %v", out, err)
	}
	return r.Removed
}

// mountsUnder lists the mount points at or below dir.
func mountsUnder(t *testing.T, dir string) []string {
	t.Helper()
	mounts, err := mountinfo.GetMounts(mountinfo.PrefixFilter(dir))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range mounts {
		out = append(out, m.Mountpoint)
	}
	return out
}

func TestGC001_GC006_GC007_VOL005_VOL007_TerminalPodKeepsItsDataUntilGC(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	host := t.TempDir()
	if err := os.WriteFile(filepath.Join(host, "f"), []byte("host\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	hostInfo, _ := os.Stat(filepath.Join(host, "f"))
	m := gcPod(t, layout, "keep", `spec:
  restartPolicy: Never
  volumes:
  - {name: data, emptyDir: {}}
  - {name: mem, emptyDir: {medium: Memory, sizeLimit: 1Mi}}
  - {name: host, hostPath: {path: `+host+`}}
  - {name: cache, shared: {name: keep-cache, reclaimPolicy: Delete}}
  containers:
  - name: app
    image: "oci:LAYOUT"
    volumeMounts: [{name: data, mountPath: /data}, {name: mem, mountPath: /mem}, {name: host, mountPath: /host}, {name: cache, mountPath: /cache}]
    command: [sh, -c, "echo hello; echo d > /data/f; echo m > /mem/f; echo c > /cache/f; cat /host/f"]
  deferContainers:
  - name: last
    image: "oci:LAYOUT"
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "cat /data/f > /data/defer; echo bye"]
`)
	runToEnd(t, c, m, "keep")
	st := readState(t, c.root, "keep")
	uid := st.Pod.Status.UID
	podDir := filepath.Join(c.root, "pods", "keep")

	// GC-001: status, events, logs (defers included) and volumes stay.
	if out, code := c.run("status", "keep"); code != 0 || !strings.Contains(out, `"phase":"Succeeded"`) {
		t.Errorf("status of the terminal pod: exit %d %s", code, out)
	}
	if evs := events(t, c, "keep"); evs[len(evs)-1].Type != "PodFinished" {
		t.Errorf("events end with %s", evs[len(evs)-1].Type)
	}
	if logs, _ := c.run("logs", "keep", "app"); logs != "hello\nhost\n" {
		t.Errorf("logs of app = %q", logs)
	}
	if logs, _ := c.run("logs", "keep", "last"); logs != "bye\n" {
		t.Errorf("logs of the defer = %q", logs)
	}
	for file, want := range map[string]string{"data/f": "d\n", "data/defer": "d\n", "mem/f": "m\n"} {
		if b, _ := os.ReadFile(filepath.Join(podDir, store.VolumesDir, file)); string(b) != want {
			t.Errorf("emptyDir file %s = %q after the pod ended, want %q (VOL-005: it outlives every container and defer)", file, b, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, store.SharedVolumesDir, "keep-cache", "f")); string(b) != "c\n" {
		t.Errorf("shared volume content %q", b)
	}

	out, code := c.run("gc")
	if code != 0 || strings.Join(removed(t, out), ",") != "keep" {
		t.Fatalf("gc: exit %d %q, want keep removed", code, out)
	}
	// GC-006: state, events, logs, volumes, containers, cgroups, mounts are gone.
	if _, err := os.Stat(podDir); !os.IsNotExist(err) {
		t.Errorf("pod directory left after gc: %v", err)
	}
	if ms := mountsUnder(t, podDir); len(ms) > 0 {
		t.Errorf("mounts left: %v", ms)
	}
	if left, _ := exec.Command("runc", "--root", filepath.Join(c.root, "runc"), "list", "-q").Output(); strings.TrimSpace(string(left)) != "" {
		t.Errorf("runc containers left: %s", left)
	}
	hs, _ := oci.CgroupHierarchies()
	for _, h := range hs {
		if _, err := os.Stat(filepath.Join(h.Mountpoint, "podspec", uid)); err == nil {
			t.Errorf("cgroup %s/podspec/%s left", h.Mountpoint, uid)
		}
	}
	// VOL-012: the shared volume's last pod said Delete.
	if _, err := os.Stat(filepath.Join(c.root, store.SharedVolumesDir, "keep-cache")); !os.IsNotExist(err) {
		t.Errorf("shared volume with reclaimPolicy Delete left after its last pod: %v", err)
	}
	// VOL-007: the hostPath is never touched.
	if b, err := os.ReadFile(filepath.Join(host, "f")); err != nil || string(b) != "host\n" {
		t.Errorf("hostPath file after gc: %q, %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(host, "f")); err != nil || fi.Mode() != hostInfo.Mode() {
		t.Errorf("hostPath file mode changed: %v", err)
	}
	// GC-007: every verb answers NotFound.
	for _, args := range [][]string{{"status", "keep"}, {"logs", "keep", "app"}, {"events", "keep"}, {"wait", "keep"}, {"stop", "keep"}, {"rm", "keep"}} {
		if _, code := c.run(args...); code != 4 {
			t.Errorf("%s after gc: exit %d, want 4 (NotFound)", strings.Join(args, " "), code)
		}
	}
}

func TestGC002_GC003_GC004_OlderThanCountsFromFinishedAt(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	quick := `spec:
  restartPolicy: Never
  containers: [{name: app, image: "oci:LAYOUT", command: [sh, -c, "exit 0"]}]
`
	running := gcPod(t, layout, "running", `spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  containers: [{name: app, image: "oci:LAYOUT", command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]}]
`)
	if _, code := c.run("run", "--detach", running); code != 0 {
		t.Fatal("run running")
	}
	t.Cleanup(func() { c.run("rm", "--force", "running") })
	runToEnd(t, c, gcPod(t, layout, "early", quick), "early")
	time.Sleep(6 * time.Second)
	runToEnd(t, c, gcPod(t, layout, "late", quick), "late")

	lateFinished := *readState(t, c.root, "late").Pod.Status.FinishedAt
	out, code := c.run("gc", "--older-than", "5s")
	young := time.Since(lateFinished) < 5*time.Second // late was younger than 5 s while gc ran
	got := strings.Join(removed(t, out), ",")
	switch {
	case code != 0:
		t.Fatalf("gc --older-than 5s: exit %d", code)
	case young && got != "early":
		t.Errorf("gc --older-than 5s removed %q, want only early (late finished less than 5 s ago: GC-003, GC-004)", got)
	case !young && got != "early" && got != "early,late":
		t.Errorf("gc --older-than 5s removed %q, want early (GC-004)", got)
	}
	if !young {
		t.Logf("the machine is slow: late was already %s old after gc", time.Since(lateFinished))
	}
	out, code = c.run("gc")
	if got := strings.Join(removed(t, out), ","); code != 0 || (young && got != "late") || strings.Contains(got, "running") {
		t.Errorf("gc removed %q, want late and never the running pod (GC-002)", got)
	}
	if out, code := c.run("status", "running"); code != 0 || strings.Contains(out, `"finishedAt"`) {
		t.Errorf("running pod after gc: exit %d %s", code, out)
	}
}

func TestGC005_PodBeingReadIsNeverRemovedUnderTheReader(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	runToEnd(t, c, gcPod(t, layout, "read", `spec:
  restartPolicy: Never
  containers: [{name: app, image: "oci:LAYOUT", command: [sh, -c, "echo out"]}]
`), "read")
	s, err := store.Open(c.root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Pod("read")
	if err != nil {
		t.Fatal(err)
	}
	// The shared reader lock is what status, logs, events and wait hold while they read.
	lock, err := p.ReadLock()
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	out, code := c.run("gc")
	if code != 0 || len(removed(t, out)) != 0 {
		t.Errorf("gc while the pod is read: exit %d %q, want nothing removed", code, out)
	}
	if logs, code := c.run("logs", "read", "app"); code != 0 || logs != "out\n" {
		t.Errorf("logs while gc ran: exit %d %q", code, logs)
	}
	// rm waits for the reader.
	self, _ := os.Executable()
	rm := exec.Command(self, "--root", c.root, "rm", "read")
	rm.Env = append(os.Environ(), "PODSPEC_TEST_AS_CLI=1")
	if err := rm.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- rm.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("rm finished (%v) while a reader held the pod", err)
	case <-time.After(time.Second):
	}
	if _, err := os.Stat(p.Path(store.StateFile)); err != nil {
		t.Fatalf("state removed under the reader: %v", err)
	}
	lock.Unlock()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("rm after the reader left: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("rm did not finish after the reader left")
	}
	if _, code := c.run("status", "read"); code != 4 {
		t.Errorf("status after rm: exit %d, want 4", code)
	}
}

func TestVOL010_VOL011_VOL012_VOL013_SharedVolumesAreReferenceCounted(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	pod := func(name, policy, cmd string) string {
		return gcPod(t, layout, name, `spec:
  restartPolicy: Never
  volumes: [{name: cache, shared: {name: team-cache, reclaimPolicy: `+policy+`}}]
  containers:
  - name: app
    image: "oci:LAYOUT"
    volumeMounts: [{name: cache, mountPath: /cache}]
    command: [sh, -c, "`+cmd+`"]
`)
	}
	s, err := store.Open(c.root)
	if err != nil {
		t.Fatal(err)
	}
	vol := s.SharedVolumePath("team-cache")
	runToEnd(t, c, pod("writer", "Delete", `ls -A /cache | wc -l; echo x > /cache/x`), "writer")
	if logs, _ := c.run("logs", "writer", "app"); strings.TrimSpace(logs) != "0" {
		t.Errorf("the first pod saw %q entries, want an empty volume (VOL-010)", logs)
	}
	runToEnd(t, c, pod("reader", "Delete", `cat /cache/x`), "reader")
	if logs, _ := c.run("logs", "reader", "app"); logs != "x\n" {
		t.Errorf("the second pod read %q, want the first pod's file: one directory per name (VOL-010)", logs)
	}
	if users, _ := s.SharedVolumeUsers("team-cache"); len(users) != 2 {
		t.Errorf("references %v, want both pods", users)
	}
	if _, code := c.run("rm", "writer"); code != 0 {
		t.Fatal("rm writer")
	}
	if b, err := os.ReadFile(filepath.Join(vol, "x")); err != nil || string(b) != "x\n" {
		t.Errorf("volume after its first pod was removed: %q %v; the reader still declares it (VOL-011)", b, err)
	}
	if out, _ := c.run("gc"); strings.Join(removed(t, out), ",") != "reader" {
		t.Errorf("gc printed %s", out)
	}
	if _, err := os.Stat(vol); !os.IsNotExist(err) {
		t.Errorf("volume after its last pod (Delete) was removed: %v (VOL-012)", err)
	}

	runToEnd(t, c, pod("keeper", "Retain", `echo y > /cache/y`), "keeper")
	if _, code := c.run("rm", "keeper"); code != 0 {
		t.Fatal("rm keeper")
	}
	if b, err := os.ReadFile(filepath.Join(vol, "y")); err != nil || string(b) != "y\n" {
		t.Errorf("volume after its last pod (Retain) was removed: %q %v (VOL-013)", b, err)
	}
	runToEnd(t, c, pod("again", "Delete", `cat /cache/y`), "again")
	if logs, _ := c.run("logs", "again", "app"); logs != "y\n" {
		t.Errorf("a later pod read %q from the retained volume, want y", logs)
	}
	if _, code := c.run("rm", "again"); code != 0 {
		t.Fatal("rm again")
	}
	if _, err := os.Stat(vol); !os.IsNotExist(err) {
		t.Errorf("retained volume not deleted with its last pod that says Delete: %v", err)
	}
}
