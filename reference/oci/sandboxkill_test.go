package oci

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestParsePsTableFindsEachProcesssParent reads runsc's `ps` table by its header: the exec'd
// process (ppid 0), its children and a grandchild.
func TestParsePsTableFindsEachProcesssParent(t *testing.T) {
	table := `UID       PID       PPID      C         TTY       STIME     TIME      CMD
0         1         0         2         ?         14:34     40ms      sh
0         9         0         14        ?         14:34     130ms     sleep
0         10        9         1         ?         14:34     30ms      sleep
0         13        9         15        ?         14:34     120ms     sh
0         15        13        4         ?         14:34     20ms      sleep
`
	children, err := parsePsTable([]byte(table))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := subtree(children, 9), []int{10, 13, 15}; !reflect.DeepEqual(got, want) {
		t.Fatalf("subtree of 9 = %v, want %v", got, want)
	}
	if _, err := parsePsTable([]byte("[1,9,10]")); err == nil {
		t.Fatal("a listing without PID and PPID columns was read")
	}
}

// TestExecTimeoutKillsTheTreeInsideGVisor: in runsc the exec'd processes are the sandbox
// kernel's, invisible on the host, so Exec must find and kill a timed-out tree through the
// runtime (NTF-008): the action, a child in a session of its own, that child's child and a
// second child. The tree is seen alive (through /proc inside the container) before the timeout
// and gone after Exec returned.
func TestExecTimeoutKillsTheTreeInsideGVisor(t *testing.T) {
	if _, err := exec.LookPath("runsc"); err != nil {
		t.Skip("runsc is not installed")
	}
	wrapper, err := filepath.Abs("../../scripts/runsc-host-network")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PODSPEC_TEST_OCI_RUNTIME", wrapper)
	e := newTestEnv(t)
	ctx := context.Background()
	if f, err := e.rt.Features(ctx); err != nil || !f.SandboxPIDs {
		t.Fatalf("runsc's features %+v (%v), want sandboxPids", f, err)
	}
	e.runningContainer(t, "gv", ContainerConfig{Args: []string{"sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"}})
	// cmdlines lists the command lines of the container's processes, read inside gVisor.
	cmdlines := func() string {
		out := outFile(t, "ps")
		_, _ = e.rt.Exec(ctx, "gv", ExecProcess{Args: []string{"sh", "-c", "cat /proc/[0-9]*/cmdline"}, Stdout: out, Timeout: 10 * time.Second})
		return strings.ReplaceAll(readFile(t, out), "\x00", " ")
	}
	marks := []string{"sleep 3111", "sleep 3112", "sleep 3113"}
	const timeout = 6 * time.Second
	type result struct {
		err     error
		elapsed time.Duration
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		_, err := e.rt.Exec(ctx, "gv", ExecProcess{
			Args:    []string{"sh", "-c", `setsid sh -c 'sleep 3111 & sleep 3112' & sleep 3113 & wait`},
			Timeout: timeout,
		})
		done <- result{err, time.Since(start)}
	}()
	for seen := ""; ; seen = cmdlines() {
		all := true
		for _, m := range marks {
			all = all && strings.Contains(seen, m)
		}
		if all {
			break
		}
		if time.Since(start) > timeout {
			t.Fatalf("the tree was not seen whole before the timeout: %q", seen)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(timeout + 30*time.Second):
		t.Fatal("Exec did not return")
	}
	if !errors.Is(r.err, ErrExecTimeout) {
		t.Fatalf("err = %v after %s, want ErrExecTimeout", r.err, r.elapsed)
	}
	t.Logf("Exec returned %s after its start (timeout %s)", r.elapsed, timeout)
	left := cmdlines()
	for _, m := range marks {
		if strings.Contains(left, m) {
			t.Errorf("%q outlived the timeout: %q", m, left)
		}
	}
}
