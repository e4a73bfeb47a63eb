package backend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/reference/oci"
)

// TestOrphanedHoldIsEndedBeforeItsHookTimesOut plays a supervisor lost while the OCI runtime
// created an instance, before the hook opened the start FIFO: the runtime invocation runs (a
// child of this process, as it would be of the lost supervisor) and nobody holds the FIFO's
// write side, so the hook would block in its open until heldHookTimeout, and runsc's delete
// with it (docs/runtime.md, "Supervisor loss"). endOrphanedHold, called at once — the hook may
// not exist yet, as while runsc boots its sandbox — must end the invocation with a failed run:
// no hook or invocation left, the container unknown to the runtime, its program never run.
func TestOrphanedHoldIsEndedBeforeItsHookTimesOut(t *testing.T) {
	e := newHeldEnv(t, "sh", "-c", "touch /ran; exec sleep 60")
	ctx := context.Background()
	for _, f := range []string{CreatedFIFO, StartFIFO} {
		if err := unix.Mkfifo(filepath.Join(e.bundle, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	done := e.b.Runtime.RunDetached(ctx, e.id, e.bundle, oci.IO{})
	t.Cleanup(func() {
		hooks, runs := holdProcesses(e.bundle)
		for _, pid := range append(hooks, runs...) {
			unix.Kill(pid, unix.SIGKILL)
		}
		<-done
	})
	endOrphanedHold(e.bundle)
	if hooks, runs := holdProcesses(e.bundle); len(hooks)+len(runs) != 0 {
		t.Errorf("left after endOrphanedHold: hooks %v, runtime invocations %v", hooks, runs)
	}
	// Nothing of the hold runs any more, so the invocation's result is there (or on its way).
	err := <-done
	done = closedDone(err)
	if err == nil {
		t.Errorf("the orphaned run succeeded; want it failed with its killed hook")
	}
	if _, err := e.b.Runtime.State(ctx, e.id); !errors.Is(err, oci.ErrNotFound) {
		t.Errorf("the runtime still knows the container (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(e.bundle, "rootfs", "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the container's program ran (it left /ran): %v", err)
	}
}

// closedDone is a channel that has already delivered err, for a cleanup that reads it again.
func closedDone(err error) <-chan error {
	c := make(chan error, 1)
	c <- err
	return c
}

// TestEndOrphanedHoldLeavesAReleasedBundleAlone: a bundle without the start FIFO (released, or
// never held) is not a hold, whatever runs: endOrphanedHold returns without looking for one.
func TestEndOrphanedHoldLeavesAReleasedBundleAlone(t *testing.T) {
	e := newHeldEnv(t)
	pid, err := e.b.createHeld(context.Background(), e.id, e.bundle, oci.IO{})
	if err != nil {
		t.Fatal(err)
	}
	if held, err := e.b.release(e.id, true); !held || err != nil {
		t.Fatalf("release(run) = %v, %v", held, err)
	}
	endOrphanedHold(e.bundle)
	if unix.Kill(pid, 0) != nil {
		t.Errorf("endOrphanedHold of a released bundle ended its container's process")
	}
	unix.Kill(pid, unix.SIGKILL)
	var ws unix.WaitStatus
	unix.Wait4(pid, &ws, 0, nil)
}
