package backend

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/reference/oci"
)

// The environment of this test binary run as a supervisor that holds an instance (heldChild).
const (
	heldChildRoot   = "PODSPEC_TEST_HELD_CHILD_ROOT"
	heldChildBundle = "PODSPEC_TEST_HELD_CHILD_BUNDLE"
	heldChildID     = "PODSPEC_TEST_HELD_CHILD_ID"
)

func TestMain(m *testing.M) {
	if os.Getenv(heldChildID) != "" {
		os.Exit(heldChild())
	}
	os.Exit(m.Run())
}

// heldChild plays a supervisor: a subreaper that creates a held instance, reports its pid on
// stdout and then holds it until it dies (or its stdin ends, should the test die first: it
// then exits without releasing the instance, as a dying supervisor would).
func heldChild() int {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	b := &Backend{Runtime: &oci.Runtime{Root: os.Getenv(heldChildRoot)}}
	pid, err := b.createHeld(context.Background(), os.Getenv(heldChildID), os.Getenv(heldChildBundle), oci.IO{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(pid)
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// childrenOf returns the pids of the processes whose parent is ppid.
func childrenOf(ppid int) []int {
	var out []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// The parent is the second field after the command, which is in parentheses.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(ppid) {
			out = append(out, pid)
		}
	}
	return out
}

// cmdline is the command line of pid, its arguments separated by spaces.
func cmdline(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
}

// reap waits (at most until deadline) for the end of pid, a child of this process, and
// returns its wait status; ok is false when it had not ended by then.
func reap(pid int, deadline time.Time) (ws unix.WaitStatus, ok bool) {
	for {
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		if got == pid || err != nil {
			return ws, got == pid
		}
		if time.Now().After(deadline) {
			return ws, false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHeldInstanceOfAKilledSupervisorIsDestroyedUnstarted: a supervisor that dies while an
// instance is held (SIGKILL: nothing of it runs any more) closes its end of the start FIFO
// with its death; the hook fails and the runtime destroys the container, whose program never
// ran (docs/runtime.md). The supervisor is a child process running createHeld; this test
// process is the subreaper its orphan, the runtime invocation (the container's process is
// that invocation's child), moves to, as it would to the system's.
func TestHeldInstanceOfAKilledSupervisorIsDestroyedUnstarted(t *testing.T) {
	e := newHeldEnv(t, "sh", "-c", "touch /ran; exec sleep 60")
	ctx := context.Background()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sup := exec.Command(exe, "-test.run=^$")
	sup.Env = append(os.Environ(), heldChildRoot+"="+e.b.Runtime.Root, heldChildBundle+"="+e.bundle, heldChildID+"="+e.id)
	stdin, err := sup.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := sup.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	sup.Stderr = &stderr
	if err := sup.Start(); err != nil {
		t.Fatal(err)
	}
	var runPID, pid int
	// Whatever happens, nothing is left: the supervisor, the runtime invocation, its hook and
	// the container (newHeldEnv's cleanup, which runs after this one, deletes it too).
	t.Cleanup(func() {
		stdin.Close()
		sup.Process.Kill()
		sup.Wait()
		for _, c := range childrenOf(os.Getpid()) {
			if c == pid || strings.Contains(cmdline(c), e.id) || strings.Contains(cmdline(c), e.bundle) {
				unix.Kill(c, unix.SIGKILL)
				reap(c, time.Now().Add(10*time.Second))
			}
		}
		e.b.Runtime.Delete(context.Background(), e.id, true)
		if pid > 0 {
			reap(pid, time.Now().Add(10*time.Second))
		}
	})

	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if pid, err = strconv.Atoi(strings.TrimSpace(line)); err != nil {
		sup.Wait()
		t.Fatalf("the supervisor reported %q, not a pid: %s", line, stderr.String())
	}
	for _, c := range childrenOf(sup.Process.Pid) {
		if cl := cmdline(c); strings.Contains(cl, " run ") && strings.Contains(cl, e.id) {
			runPID = c
		}
	}
	if runPID == 0 {
		t.Fatalf("no runtime invocation among the supervisor's children %v", childrenOf(sup.Process.Pid))
	}
	if c := comm(pid); !strings.HasPrefix(c, "runc:") {
		t.Fatalf("held: the container's process runs %q; want it still in runc's init", c)
	}

	// The container's process is the runtime invocation's child, which reaps it: a pidfd
	// tells its end, whoever reaps it.
	pfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pfd)
	if err := sup.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	sup.Wait()

	// The runtime invocation is now this process's child.
	deadline := time.Now().Add(30 * time.Second)
	ws, ok := reap(runPID, deadline)
	if !ok {
		t.Fatalf("the runtime invocation (%s) still runs 30 s after the supervisor died; it should fail with its hook", cmdline(runPID))
	}
	if !ws.Exited() || ws.ExitStatus() == 0 {
		t.Errorf("the runtime invocation ended %v, want a failed run (its createRuntime hook failed)", ws)
	}
	if n, err := unix.Poll([]unix.PollFd{{Fd: int32(pfd), Events: unix.POLLIN}}, 10_000); n != 1 {
		t.Fatalf("the container's process %d (%s) still runs after the runtime invocation ended (%v)", pid, comm(pid), err)
	}
	if _, err := os.Stat(filepath.Join(e.bundle, "rootfs", "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the container's program ran (it left /ran): %v", err)
	}
	if _, err := e.b.Runtime.State(ctx, e.id); !errors.Is(err, oci.ErrNotFound) {
		t.Errorf("the runtime still knows the container (%v)", err)
	}
	if list, err := e.b.Runtime.List(ctx); err != nil || len(list) != 0 {
		t.Errorf("runc list: %v, %v; want no container", list, err)
	}
}
