package engine

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"podspec.dev/podspec/reference/reaper"
)

// TestProcessEndedTellsRunningFromGoneAndZombie: the check NTF-013's classification uses to
// know that an instance's main process has ended before the engine recorded it.
func TestProcessEndedTellsRunningFromGoneAndZombie(t *testing.T) {
	if processEnded(os.Getpid()) {
		t.Fatal("this process is running")
	}
	if processEnded(0) || processEnded(-1) {
		t.Fatal("no pid is not an ended process")
	}
	cmd := exec.Command("sleep", "30")
	if err := reaper.StartCmd(cmd); err != nil { // the test reaper (TestMain) leaves it alone
		t.Skipf("no sleep binary: %v", err)
	}
	pid := cmd.Process.Pid
	if processEnded(pid) {
		t.Fatal("a sleeping child is running")
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	// Not waited for: a zombie until Wait reaps it.
	deadline := time.Now().Add(5 * time.Second)
	for !processEnded(pid) {
		if time.Now().After(deadline) {
			t.Fatal("a killed, unreaped child is not reported ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = reaper.WaitCmd(cmd)
	if !processEnded(pid) {
		t.Fatal("a reaped child is not reported ended")
	}
}
