package engine

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"podspec.dev/podspec/reference/reaper"
)

// TestAwaitKilledSendsTheSecondSIGKILLThroughThePidfd: when the first SIGKILL of a defer has
// not taken effect after 5 s, awaitKilled kills again through the instance's pidfd, never by
// pid: here the instance's recorded pid names another process (as a reused pid of an adopted
// instance would), which must survive, while the instance's own process dies.
func TestAwaitKilledSendsTheSecondSIGKILLThroughThePidfd(t *testing.T) {
	// Each process is reaped by its own goroutine (the watcher's part for the instance's).
	start := func() (*exec.Cmd, <-chan struct{}) {
		c := exec.Command("sleep", "60")
		if err := reaper.StartCmd(c); err != nil { // the test reaper (TestMain) leaves it alone
			t.Fatal(err)
		}
		reaped := make(chan struct{})
		go func() { reaper.WaitCmd(c); close(reaped) }()
		t.Cleanup(func() { c.Process.Kill(); <-reaped })
		return c, reaped
	}
	own, ownReaped := start()
	other, _ := start()
	fd := openPidFD(own.Process.Pid)
	if fd == nil {
		t.Skip("pidfd_open is not available")
	}
	defer fd.close()
	exit := make(chan reaper.ExitStatus, 1)
	inst := &instance{id: "defer-1", pid: other.Process.Pid, adopted: true, pidfd: fd, exit: exit}
	go func() {
		<-ownReaped
		exit <- reaper.ExitStatus{Known: true, Status: own.ProcessState.Sys().(syscall.WaitStatus)}
	}()
	e := &Engine{logf: t.Logf}
	got := make(chan reaper.ExitStatus, 1)
	go func() { got <- e.awaitKilled(context.Background(), inst) }()
	select {
	case ex := <-got:
		if !ex.Known || !ex.Status.Signaled() || ex.Status.Signal() != syscall.SIGKILL {
			t.Fatalf("exit %+v, want death by SIGKILL", ex)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the instance's process was not killed")
	}
	if processEnded(other.Process.Pid) {
		t.Error("the process at the instance's recorded pid was killed")
	}
}
