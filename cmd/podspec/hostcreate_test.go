package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/flock"
	"podspec.dev/podspec/reference/store"
)

// TestHostCreateParallelismBoundsCreationsAcrossPods creates 6 pods at once with
// `run --host-create-parallelism 2` on an OCI runtime wrapper that records, from outside the
// supervisors, how many `run` invocations (the held creation, backend/held.go) are alive when
// each begins, and makes each last a second: never more than 2 at once, though every pod's
// supervisor creates its container as soon as it runs, and every pod's container runs to its end
// with no StartError (the wait for a slot is not counted against a creation's timeout). Without
// the host-wide bound the 6 creations overlap (the per-pod bound allows each pod its own).
func TestHostCreateParallelismBoundsCreationsAcrossPods(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	runc, err := exec.LookPath("runc")
	if err != nil {
		t.Skip("needs runc")
	}
	dir := t.TempDir()
	live := filepath.Join(dir, "live")
	if err := os.Mkdir(live, 0o700); err != nil {
		t.Fatal(err)
	}
	counts := filepath.Join(dir, "counts")
	// The wrapper is named runc so that the runtime is recognised as runc (its init's name). A
	// creation (`run --bundle`, not `run --help`) records its pid, which runc keeps once exec'd
	// (the container's process must be the supervisor's grandchild, as without a wrapper), counts
	// the recorded pids still alive, itself included, and lasts a second before runc starts. A
	// slot is freed only once the supervisor has reaped its invocation, so a pid alive is a slot
	// held.
	wrapper := filepath.Join(dir, "bin", "runc")
	if err := os.MkdirAll(filepath.Dir(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`#!/bin/sh
for a in "$@"; do
	if [ "$a" = --bundle ]; then
		: >%[1]s/$$
		n=0
		for p in $(ls %[1]s); do
			if kill -0 "$p" 2>/dev/null; then n=$((n+1)); fi
		done
		echo "$n" >>%[2]s
		sleep 1
		break
	fi
done
exec %[3]s "$@"
`, live, counts, runc)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	const pods = 6
	var wg sync.WaitGroup
	for i := range pods {
		name := fmt.Sprintf("host-create-%d", i)
		manifest := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: `+name+`}
spec:
  restartPolicy: Never
  containers:
  - {name: app, image: "oci:`+layout+`", command: ["true"]}
`), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.run("--oci-runtime", wrapper, "rm", "--force", name) })
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, code := c.run("--oci-runtime", wrapper, "run", "--detach", "--host-create-parallelism", "2", manifest); code != 0 {
				t.Errorf("run --detach %s: exit %d", name, code)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for i := range pods {
		name := fmt.Sprintf("host-create-%d", i)
		out, code := c.run("--oci-runtime", wrapper, "wait", "--timeout", "120s", name)
		if code != 0 {
			t.Fatalf("wait %s: exit %d", name, code)
		}
		var st v1alpha1.PodStatus
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("wait %s: %v: %s", name, err, out)
		}
		if st.Phase != v1alpha1.PodSucceeded || len(st.ContainerStatuses) != 1 || st.ContainerStatuses[0].RestartCount != 0 {
			evs, _ := c.run("--oci-runtime", wrapper, "events", name)
			t.Errorf("%s ended %s with %+v, want Succeeded on its first instance; events:\n%s", name, st.Phase, st.ContainerStatuses, evs)
		}
	}
	b, err := os.ReadFile(counts)
	if err != nil {
		t.Fatal(err)
	}
	most, runs := 0, 0
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("counts: %q", b)
		}
		most, runs = max(most, n), runs+1
	}
	t.Logf("creations alive as each began: %s", strings.Join(strings.Fields(string(b)), " "))
	if runs != pods {
		t.Errorf("%d creations, want %d (one per pod)", runs, pods)
	}
	if most > 2 {
		t.Errorf("%d creations ran at once (counts on entry: %s), want at most 2 (--host-create-parallelism 2)", most, strings.Join(strings.Fields(string(b)), " "))
	}
}

// TestStopEndsTheWaitForAHostCreationSlot: with the host's only creation slot held (here by
// the test), a pod's container waits for it; `rm --force` then removes the pod at once instead
// of waiting for the slot (the container is skipped, never created), and nothing of it is left.
func TestStopEndsTheWaitForAHostCreationSlot(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	if _, code := c.run("list"); code != 0 { // makes the root, which the slots live in
		t.Fatal("list: exit", code)
	}
	hold, err := flock.Slot(context.Background(), filepath.Join(c.root, store.CreateSlotsDir), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer hold()
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	if err := os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: waits}
spec:
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sleep, "60"]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, code := c.run("run", "--detach", "--host-create-parallelism", "1", manifest); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	t.Cleanup(func() { c.run("rm", "--force", "waits") })
	waitFor(t, "the container waiting for its creation", 30*time.Second, func() bool {
		st := readState(t, c.root, "waits")
		return st.Supervisor.PID != 0 && (st.Containers["app"] == nil || st.Containers["app"].ContainerID == "")
	})
	time.Sleep(500 * time.Millisecond) // in the wait for the slot, not before it
	t0 := time.Now()
	if _, code := c.run("rm", "--force", "waits"); code != 0 {
		t.Fatalf("rm --force while the container waits for a creation slot: exit %d", code)
	}
	if d := time.Since(t0); d > 20*time.Second {
		t.Errorf("rm --force took %s with the slot still held; want the stop to end the wait", d)
	}
	if _, code := c.run("status", "waits"); code == 0 {
		t.Errorf("the pod is still there after rm --force")
	}
	if _, err := os.Stat(filepath.Join(c.root, "pods", "waits")); !os.IsNotExist(err) {
		t.Errorf("the pod's directory is left after rm --force (stat: %v)", err)
	}
	if left, _ := exec.Command("runc", "--root", filepath.Join(c.root, "runc"), "list", "-q").Output(); strings.TrimSpace(string(left)) != "" {
		t.Errorf("OCI containers left after rm --force: %s", left)
	}
}
