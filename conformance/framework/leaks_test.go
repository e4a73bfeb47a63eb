package framework

import (
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

func TestLeakedProcessesFindsAProcessCarryingTheRunID(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), EnvRunID+"=ctest01")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start sleep: %v", err)
	}
	got := leakedProcesses(EnvRunID + "=ctest01")
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if len(got) != 1 || !strings.Contains(got[0], "sleep 30") {
		t.Fatalf("leakedProcesses = %q", got)
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
