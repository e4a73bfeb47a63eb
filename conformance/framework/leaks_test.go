package framework

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"podspec.dev/podspec/internal/mounttest"
)

func TestLeakedCgroupsFindsDirectoriesNamedAfterTheRun(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"memory/podspec/c0ffee1-init-order", "pids/other/x", "cpu/deep/a/b/c/d/e/f/g/c0ffee1-too-deep"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got := leakedCgroups(root, []string{"c0ffee1-"}, 5)
	if len(got) != 1 || !strings.Contains(got[0], "c0ffee1-init-order") {
		t.Fatalf("leakedCgroups = %q", got)
	}
}

// TestLeakedProcessesFindsAProcessCarryingTheRunID starts a shell carrying the run ID that says
// when it runs (a process just past exec has an empty /proc/PID/environ until the kernel has set
// up its stack, so looking right after Start races), then ends it by closing its stdin.
func TestLeakedProcessesFindsAProcessCarryingTheRunID(t *testing.T) {
	cmd := exec.Command("sh", "-c", "echo ready; read line; exit 0")
	cmd.Env = append(os.Environ(), EnvRunID+"=ctest01")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start sh: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the shell did not start: %q, %v", line, err)
	}
	got := leakedProcesses(EnvRunID + "=ctest01")
	if len(got) != 1 || !strings.Contains(got[0], "echo ready; read line; exit 0") {
		t.Fatalf("leakedProcesses = %q", got)
	}
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the shell: %v", err)
	}
	if again := leakedProcesses(EnvRunID + "=ctest01"); len(again) != 0 {
		t.Fatalf("a reaped process is still reported: %q", again)
	}
}

func TestLeakedMountsLooksAtMountPoints(t *testing.T) {
	if got := leakedMounts([]string{"/definitely/not/mounted/c0ffee1"}); len(got) != 0 {
		t.Fatalf("leakedMounts = %q", got)
	}
	if got := leakedMounts([]string{"/proc"}); len(got) == 0 {
		t.Fatal("/proc is mounted but was not found")
	}
}

// TestLeakedMountsFindsAnEscapedMountPoint mounts a tmpfs at a path that mountinfo escapes, in
// a mount namespace of the test's own, and finds it by the unescaped needle.
func TestLeakedMountsFindsAnEscapedMountPoint(t *testing.T) {
	dir := t.TempDir()
	var got []string
	var mp string
	mounttest.InPrivateNamespace(t, func() error {
		var err error
		mp, err = mounttest.Tmpfs("tmpfs", dir, "c0ffee1-"+mounttest.OddName)
		got = leakedMounts([]string{"c0ffee1-" + mounttest.OddName})
		return err
	})
	if want := fmt.Sprintf("mount still present: %q", mp); len(got) != 1 || got[0] != want {
		t.Fatalf("leakedMounts = %q, want [%q]", got, want)
	}
}
