package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/reference/logs"
	"podspec.dev/podspec/reference/store"
)

// consecutive checks that out is the lines first, first+1, … and returns the last number.
func consecutive(t *testing.T, what, out string, first int) int {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, l := range lines {
		n, err := strconv.Atoi(strings.TrimSpace(l))
		if err != nil || n != first+i {
			t.Fatalf("%s: line %d is %q, want %d (a gap, a repeat or a garbled line)", what, i, l, first+i)
		}
	}
	return first + len(lines) - 1
}

// logBytes is the size of every file of a container instance's log.
func logBytes(t *testing.T, path string) (int64, int) {
	var total int64
	files := logs.Files(path)
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			total += fi.Size()
		}
	}
	return total, len(files)
}

// A container writing as fast as it can keeps its log within --log-max-size × --log-max-files,
// and logs --follow, started before, keeps up with it across the rotations: it prints every
// line in order and ends when the container does.
func TestLogsStayWithinTheirBoundAndFollowKeepsUp(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	// 1,000,000 numbered lines (about 6.9 MB, 40 MB of log records) in bursts of 10,000 written
	// as fast as seq writes them, a tenth of a second apart, over a bound of 3 MiB: the log
	// rotates about 40 times, and a follower that keeps up reads every line.
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: chatty}
spec:
  restartPolicy: Never
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sh, -c, "sleep 1; for i in $(seq 0 99); do seq $((i*10000)) $((i*10000+9999)); sleep 0.1; done"]}
`), 0o644)
	t.Cleanup(func() { c.run("rm", "--force", "chatty") })
	if _, code := c.run("run", "--detach", "--log-max-size", "1Mi", "--log-max-files", "3", manifest); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	follow := exec.Command(self, "--root", c.root, "logs", "--follow", "chatty", "app")
	follow.Env = append(os.Environ(), "PODSPEC_TEST_AS_CLI=1")
	stdout, err := follow.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { follow.Process.Kill(); follow.Wait() })
	var followed strings.Builder
	maxBytes, maxFiles := int64(0), 0
	path := filepath.Join(c.root, "pods", "chatty", store.LogsDir, "app", "0.log")
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			followed.WriteString(sc.Text() + "\n")
		}
		done <- follow.Wait()
	}()
	deadline := time.After(3 * time.Minute)
	for waiting := true; waiting; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("logs --follow: %v", err)
			}
			waiting = false
		case <-deadline:
			t.Fatalf("logs --follow did not end within 3 minutes of the container's output; followed %d bytes", followed.Len())
		case <-time.After(20 * time.Millisecond):
			b, n := logBytes(t, path)
			maxBytes, maxFiles = max(maxBytes, b), max(maxFiles, n)
		}
	}
	if last := consecutive(t, "logs --follow", followed.String(), 0); last != 999999 {
		t.Errorf("logs --follow ended at line %d, want 999999", last)
	}
	if bound := int64(3 << 20); maxBytes > bound || maxFiles > 3 {
		t.Errorf("the log reached %d bytes in %d files, over the bound of 3 files of 1 MiB", maxBytes, maxFiles)
	}
	if maxFiles < 3 {
		t.Errorf("the log never rotated (at most %d files)", maxFiles)
	}
	// What is kept is the newest output, whole, and --tail and --timestamps read it.
	out, code := c.run("logs", "chatty", "app")
	if code != 0 || consecutive(t, "logs", out, 1000000-strings.Count(out, "\n")) != 999999 {
		t.Errorf("logs after the end: exit %d", code)
	}
	out, _ = c.run("logs", "--tail", "3", "--timestamps", "chatty", "app")
	rows := strings.Split(strings.TrimSpace(out), "\n")
	if len(rows) != 3 || !strings.HasSuffix(rows[2], " 999999") {
		t.Errorf("logs --tail 3 --timestamps: %q", out)
	}
	for _, r := range rows {
		ts, _, _ := strings.Cut(r, " ")
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("row %q: no RFC 3339 time first", r)
		}
	}
	if out, _ := c.run("logs", "--since", "1h", "--tail", "1", "chatty", "app"); out != "999999\n" {
		t.Errorf("logs --since 1h --tail 1: %q", out)
	}
	if _, stderr, code := c.runErr("logs", "--since", "yesterday", "chatty", "app"); code == 0 || !strings.Contains(stderr, "RFC 3339") {
		t.Errorf("logs --since yesterday: exit %d, %s; want a usage error", code, stderr)
	}
	// events --since: every event of the last hour, none from the future.
	all, _ := c.run("events", "chatty")
	if recent, _ := c.run("events", "--since", "1h", "chatty"); recent != all || all == "" {
		t.Errorf("events --since 1h printed %d bytes, events %d", len(recent), len(all))
	}
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	if none, code := c.run("events", "--since", future, "chatty"); code != 0 || none != "" {
		t.Errorf("events --since %s: exit %d, %q; want nothing", future, code, none)
	}
}

// While no supervisor runs, a container's output waits in its pipe, and the adopting supervisor
// copies it: the log has every line, in order, across the loss.
func TestLogsLoseNothingAcrossTheSupervisorsLoss(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: counting}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sh, -c, "trap 'exit 0' TERM; i=0; while true; do echo $i; i=$((i+1)); sleep 0.01; done"]}
`), 0o644)
	t.Cleanup(func() { c.run("rm", "--force", "counting") })
	if _, code := c.run("run", "--detach", manifest); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	waitFor(t, "the container to run", 30*time.Second, func() bool {
		r := readState(t, c.root, "counting").Containers["app"]
		return r != nil && r.Running
	})
	time.Sleep(500 * time.Millisecond)
	sup := readState(t, c.root, "counting").Supervisor
	if err := syscall.Kill(sup.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the supervisor to die", 10*time.Second, func() bool { return procstat.StartTime(sup.PID) != sup.StartTime })
	time.Sleep(time.Second) // about 100 lines written with nobody copying them
	if _, code := c.run("status", "counting"); code != 0 {
		t.Fatalf("status (adopting the pod): exit %d", code)
	}
	time.Sleep(500 * time.Millisecond)
	if _, code := c.run("stop", "counting"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	if _, code := c.run("wait", "--timeout", "30s", "counting"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	out, _ := c.run("logs", "counting", "app")
	if last := consecutive(t, "logs across the loss", out, 0); last < 150 {
		t.Errorf("only %d lines: the container wrote for about 2 s", last+1)
	}
}
