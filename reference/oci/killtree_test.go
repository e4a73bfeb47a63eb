package oci

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// procState is the state letter of /proc/PID/stat ("" when the process is gone).
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// TestKillProcessTreeReachesADescendantInASessionOfItsOwn: the tree is a shell leading its own
// process group, a child that left the group (setsid) and that child's child. Killing the
// root (or its group) first would reparent the child out of the tree before it was found;
// KillProcessTree must kill all three (NTF-008: a timed-out notifier action's whole tree).
func TestKillProcessTreeReachesADescendantInASessionOfItsOwn(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid is not installed")
	}
	cmd := exec.Command("sh", "-c", `setsid sh -c 'sleep 60 & wait' & wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := make(chan struct{})
	go func() { _ = cmd.Wait(); close(reaped) }()
	var tree []int
	t.Cleanup(func() {
		for _, p := range append(tree, cmd.Process.Pid) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		<-reaped
	})
	for deadline := time.Now().Add(10 * time.Second); len(tree) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the tree did not grow to two descendants: %v", tree)
		}
		tree = descendants(cmd.Process.Pid)
	}
	child := tree[0]
	if sid, err := unix.Getsid(child); err != nil || sid != child {
		t.Fatalf("the child %d leads no session of its own (session %d, %v)", child, sid, err)
	}
	KillProcessTree(cmd.Process.Pid)
	for _, p := range append(tree, cmd.Process.Pid) {
		deadline := time.Now().Add(5 * time.Second)
		for st := procState(p); st != "" && st != "Z"; st = procState(p) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d of the tree survived (state %s)", p, st)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
