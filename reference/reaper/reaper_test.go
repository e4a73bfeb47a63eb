package reaper

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"podspec.dev/podspec/internal/procstat"
)

// TestWatchFollowsAGrandchildThatBecomesAChild: a watched process that is still the child of
// one of this process's children (as a container's process is the OCI runtime invocation's
// until it exits) is waited for until it is reparented to this subreaper, and its real exit
// status is reported, not an unknown one.
func TestWatchFollowsAGrandchildThatBecomesAChild(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := Start(ctx)
	if err != nil {
		t.Skipf("cannot become a subreaper: %v", err)
	}
	// The child starts the grandchild, prints its pid, and exits 300 ms later; the grandchild
	// exits 7 after 600 ms, by then this process's child.
	child := exec.Command("sh", "-c", `sh -c 'sleep 0.6; exit 7' & echo $!; sleep 0.3`)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := StartCmd(child); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	exit := r.Watch(pid)
	if err := WaitCmd(child); err != nil {
		t.Fatal(err)
	}
	select {
	case st := <-exit:
		if !st.Known || st.Status.ExitStatus() != 7 {
			t.Errorf("exit of the grandchild: known %v, status %d; want known, 7", st.Known, st.Status.ExitStatus())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the grandchild's exit was never reported")
	}
}

// TestOrphanIsReapedAtOnceWhileOsExecChildrenKeepTheirStatus: an orphan reparented to the
// subreaper (as runsc's gofer is, whose zombie makes `runsc delete` wait 5 s) is reaped when its
// SIGCHLD arrives, not by a periodic scan, while children that os/exec started through StartCmd
// and waits for, exiting all the while, each still get their own exit status (a reaper that took
// every zombie would make their Wait fail with ECHILD). A Watch of the orphan's pid after it was
// reaped gets its status. The orphans' bound, 3 s, is below the 5 s period at which the former
// reaper scanned for zombies (it reaped one only on the second scan that saw it).
func TestOrphanIsReapedAtOnceWhileOsExecChildrenKeepTheirStatus(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reaped := make(chan int, 64)
	r, err := start(ctx, func(pid int, _ syscall.WaitStatus) { reaped <- pid })
	if err != nil {
		t.Skipf("cannot become a subreaper: %v", err)
	}

	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // os/exec children, exiting 3, all through the orphans' reaping
		defer wg.Done()
		for n := 0; ; n++ {
			select {
			case <-stop:
				if n < 10 {
					t.Errorf("only %d os/exec children ran", n)
				}
				return
			default:
			}
			err := RunCmd(exec.Command("sh", "-c", "exit 3"))
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 3 {
				t.Errorf("os/exec child %d: %v; want exit status 3", n, err)
				return
			}
		}
	}()

	for i := 0; i < 10; i++ {
		// The child prints the pid of a subshell that exits 5 after 50 ms and exits at once: the
		// subshell is an orphan of this process when it ends.
		child := exec.Command("sh", "-c", `(sleep 0.05; exit 5) & echo $!`)
		out, err := Output(child)
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.After(3 * time.Second)
	wait:
		for {
			select {
			case got := <-reaped:
				if got == pid {
					break wait
				}
			case <-deadline:
				st, err := procstat.Read(pid)
				t.Fatalf("orphan %d not reaped 3 s after its start (state %c, %v)", pid, st.State, err)
			}
		}
		select {
		case st := <-r.Watch(pid):
			if !st.Known || st.Status.ExitStatus() != 5 {
				t.Errorf("late Watch of the reaped orphan %d: known %v, status %d; want known, 5", pid, st.Known, st.Status.ExitStatus())
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("late Watch of the reaped orphan %d got nothing", pid)
		}
	}
	close(stop)
	wg.Wait()
}

// TestWatchOfAReusedPidIsNotGivenAStaleOrphanStatus: a kept orphan status is given to a Watch
// of its pid only while no process has that pid; a live process with the pid is watched.
func TestWatchOfAReusedPidIsNotGivenAStaleOrphanStatus(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := Start(ctx)
	if err != nil {
		t.Skipf("cannot become a subreaper: %v", err)
	}
	live := exec.Command("sleep", "0.3")
	if err := live.Start(); err != nil { // not through StartCmd: the Watch below reaps it
		t.Fatal(err)
	}
	pid := live.Process.Pid
	// Pretend an earlier process with this pid was reaped as an orphan, status 9.
	r.mu.Lock()
	r.rememberLocked(pid, syscall.WaitStatus(9<<8))
	r.mu.Unlock()
	select {
	case st := <-r.Watch(pid):
		if !st.Known || st.Status.ExitStatus() != 0 {
			t.Errorf("Watch of a live pid with a stale orphan status: known %v, status %d; want the live process's 0", st.Known, st.Status.ExitStatus())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the live process's exit was never reported")
	}
}
