package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
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
	// creation (`run --bundle`, not `run --help`) records its pid, which runc keeps once exec'd (the container's process must be
	// the supervisor's grandchild, as without a wrapper), counts the recorded pids still alive,
	// itself included, and lasts a second before runc starts. A slot is freed only once the
	// supervisor has reaped its invocation, so a pid alive is a slot held.
	wrapper := filepath.Join(dir, "bin", "runc")
	os.MkdirAll(filepath.Dir(wrapper), 0o755)
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
		os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: `+name+`}
spec:
  restartPolicy: Never
  containers:
  - {name: app, image: "oci:`+layout+`", command: ["true"]}
`), 0o644)
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
