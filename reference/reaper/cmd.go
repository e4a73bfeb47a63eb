package reaper

import (
	"bytes"
	"os/exec"
	"sync"
)

// starting is held for reading while StartCmd starts a process and records it, and for writing
// by an orphan pass, which therefore never sees a child of os/exec that is not recorded yet.
var starting sync.RWMutex

// waitedFor counts, per pid, the children started through StartCmd that WaitCmd has not reaped
// yet (a count, not a set: a pid freed by one Wait may be taken by the next StartCmd before the
// first WaitCmd forgets it).
var waitedFor = struct {
	sync.Mutex
	m map[int]int
}{m: map[int]int{}}

func owned(pid int) bool {
	waitedFor.Lock()
	defer waitedFor.Unlock()
	return waitedFor.m[pid] > 0
}

// StartCmd starts cmd (cmd.Start) as a child that its starter waits for with WaitCmd: a Reaper
// in this process leaves it alone. Every os/exec start in a program that runs a Reaper goes
// through it (or RunCmd, Output, CombinedOutput); a plain cmd.Start's child can be reaped as an
// orphan before cmd.Wait gets to it.
func StartCmd(cmd *exec.Cmd) error {
	starting.RLock()
	defer starting.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	waitedFor.Lock()
	waitedFor.m[cmd.Process.Pid]++
	waitedFor.Unlock()
	return nil
}

// WaitCmd waits for a command started with StartCmd (cmd.Wait) and then forgets it.
func WaitCmd(cmd *exec.Cmd) error {
	err := cmd.Wait()
	if cmd.Process != nil {
		pid := cmd.Process.Pid
		waitedFor.Lock()
		if waitedFor.m[pid]--; waitedFor.m[pid] <= 0 {
			delete(waitedFor.m, pid)
		}
		waitedFor.Unlock()
	}
	return err
}

// RunCmd is cmd.Run through StartCmd and WaitCmd.
func RunCmd(cmd *exec.Cmd) error {
	if err := StartCmd(cmd); err != nil {
		return err
	}
	return WaitCmd(cmd)
}

// Output is cmd.Output through StartCmd and WaitCmd (standard error, unless set, is discarded).
func Output(cmd *exec.Cmd) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	err := RunCmd(cmd)
	return out.Bytes(), err
}

// CombinedOutput is cmd.CombinedOutput through StartCmd and WaitCmd.
func CombinedOutput(cmd *exec.Cmd) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := RunCmd(cmd)
	return out.Bytes(), err
}
