package backend

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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

// fakeInvocation starts a process whose command line is an OCI runtime invocation's for bundle
// (run --detach --bundle BUNDLE), leading its own process group as oci starts one, and that
// never ends on its own: a sh running sleep, which ignores a killed hook.
func fakeInvocation(t *testing.T, bundle string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "sleep 60; :", "run", "--detach", "--bundle", bundle)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
		cmd.Wait()
	})
	return cmd
}

// TestAnOrphanedInvocationThatOutlivesItsHookIsKilled: an invocation still there orphanTimeout
// after endOrphanedHold began (its hook gone, the runtime stuck) is killed with its process
// group (docs/runtime.md), so the delete that follows never waits for it.
func TestAnOrphanedInvocationThatOutlivesItsHookIsKilled(t *testing.T) {
	bundle := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(bundle, StartFIFO), 0o600); err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { orphanTimeout = d }(orphanTimeout)
	orphanTimeout = 100 * time.Millisecond
	cmd := fakeInvocation(t, bundle)
	if _, runs := holdProcesses(bundle); len(runs) != 1 || runs[0] != cmd.Process.Pid {
		t.Fatalf("holdProcesses found invocations %v, want [%d]", runs, cmd.Process.Pid)
	}
	endOrphanedHold(bundle)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("the stuck invocation ended with %v, want killed by SIGKILL", err)
	}
}

// TestEndOrphanedHoldLeavesABundleWithoutItsFIFOAlone: without StartFIFO (released, or never
// held) a bundle has no orphaned hold, whatever runs naming it: endOrphanedHold kills nothing.
func TestEndOrphanedHoldLeavesABundleWithoutItsFIFOAlone(t *testing.T) {
	bundle := t.TempDir()
	defer func(d time.Duration) { orphanTimeout = d }(orphanTimeout)
	orphanTimeout = 0
	cmd := fakeInvocation(t, bundle)
	endOrphanedHold(bundle)
	// Had endOrphanedHold killed it, that SIGKILL came first and is what it died of.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("the invocation ended with %v, want the test's SIGTERM: endOrphanedHold of a bundle without its start FIFO must not kill it", err)
	}
}
