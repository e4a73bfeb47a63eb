package framework

import (
	"os"
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
	done := make(chan error, 1)
	go func() { _, err := os.Stat(g.Dir); done <- err }()
	select {
	case <-g.Blocked():
	case <-time.After(10 * time.Second):
		t.Fatal("the armed gate held no lookup")
	}
	select {
	case err := <-done:
		t.Fatalf("the stat went through the armed gate: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	g.Open()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("stat after the gate opened: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stat stayed held after the gate opened")
	}
}
