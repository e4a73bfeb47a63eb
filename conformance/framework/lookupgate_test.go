package framework

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestLookupGateHoldsResolutionsOfItsDirectoryWhileArmed: a stat of Dir passes while the gate
// is not armed, waits while it is (Blocked then fires), and goes on once it is opened.
func TestLookupGateHoldsResolutionsOfItsDirectoryWhileArmed(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (a direct FUSE mount)")
	}
	g, err := MountLookupGate(t.TempDir())
	if err != nil {
		t.Skipf("no FUSE here: %v", err)
	}
	defer func() {
		if err := g.Close(); err != nil {
			t.Error(err)
		}
	}()
	if fi, err := os.Stat(g.Dir); err != nil || !fi.IsDir() {
		t.Fatalf("stat %s before arming: %v, %v; want a directory", g.Dir, fi, err)
	}
	g.Arm()
	expectHeldUntilOpen(t, g, "the stat", func() error { _, err := os.Stat(g.Dir); return err })
}

// expectHeldUntilOpen runs what (named name) while g is armed: it must wait at the gate, and
// succeed once g is opened.
func expectHeldUntilOpen(t *testing.T, g *LookupGate, name string, what func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- what() }()
	select {
	case <-g.Blocked():
	case <-time.After(10 * time.Second):
		t.Fatal("the armed gate held no lookup")
	}
	select {
	case err := <-done:
		t.Fatalf("%s went through the armed gate: %v", name, err)
	case <-time.After(200 * time.Millisecond):
	}
	g.Open()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s after the gate opened: %v", name, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s stayed held after the gate opened", name)
	}
}

// TestSubLookupGateHoldsOnlyItsSubdirectory: mounted by MountSubLookupGate, the armed gate lets a
// stat of Dir through and holds a chdir into Sub until it is opened.
func TestSubLookupGateHoldsOnlyItsSubdirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (a direct FUSE mount)")
	}
	g, err := MountSubLookupGate(t.TempDir())
	if err != nil {
		t.Skipf("no FUSE here: %v", err)
	}
	defer func() {
		if err := g.Close(); err != nil {
			t.Error(err)
		}
	}()
	if fi, err := os.Stat(g.Sub); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o755 {
		t.Fatalf("stat %s before arming: %v, %v; want a directory with mode 0755", g.Sub, fi, err)
	}
	g.Arm()
	if fi, err := os.Stat(g.Dir); err != nil || !fi.IsDir() {
		t.Fatalf("stat %s while armed: %v, %v; want a directory, not held", g.Dir, fi, err)
	}
	// A child process changes into Sub, as a container's exec does into its working directory.
	expectHeldUntilOpen(t, g, "the chdir", exec.Command("/bin/sh", "-c", "cd \"$0\" && pwd", g.Sub).Run)
}
