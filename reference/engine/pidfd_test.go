package engine_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
)

// signalCounter is a backend whose Signal (the OCI runtime's kill) counts its calls.
type signalCounter struct {
	engine.Backend
	calls atomic.Int32
}

func (b *signalCounter) Signal(ctx context.Context, id string, sig syscall.Signal) error {
	b.calls.Add(1)
	return b.Backend.Signal(ctx, id, sig)
}

// pidfds maps the pidfds this process holds to the pid each refers to (-1: the process was
// reaped).
func pidfds(t *testing.T) map[int]int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	for _, ent := range ents {
		fd, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		if target, err := os.Readlink("/proc/self/fd/" + ent.Name()); err != nil || target != "anon_inode:[pidfd]" {
			continue
		}
		info, err := os.ReadFile("/proc/self/fdinfo/" + ent.Name())
		if err != nil {
			continue // closed meanwhile
		}
		out[fd] = 0
		for line := range strings.Lines(string(info)) {
			if v, ok := strings.CutPrefix(line, "Pid:"); ok {
				out[fd], _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
	}
	return out
}

// instancePidfds counts the pidfds this process holds of the pod's instances, alive or
// reaped (os/exec holds pidfds of its children too: those of runc's commands are not counted;
// they are transient, as is the moment between a wait and a release, so the count is the
// least of several samples).
func instancePidfds(t *testing.T, tp *testPod) int {
	t.Helper()
	least := -1
	for range 10 {
		fds := pidfds(t)
		pids := map[int]bool{-1: true}
		for _, ev := range tp.all(runtimev1.EventContainerCreated, "") {
			pids[ev.PID] = true
		}
		n := 0
		for _, pid := range fds {
			if pids[pid] {
				n++
			}
		}
		if least < 0 || n < least {
			least = n
		}
		time.Sleep(10 * time.Millisecond)
	}
	return least
}

// TestSTOP007_STOP010_SignalsGoThroughAPidfdClosedAtEachExit: the stop signal and the SIGKILL
// at the budget end reach the containers through each instance's pidfd, without the OCI
// runtime's kill, and every pidfd is closed once its instance's exit was handled: the pidfds of
// the process do not grow with restarts, and none is left once the pod finished.
//
// Not parallel: a pidfd of a reaped process does not tell whose it was, so other pods' would
// count.
func TestSTOP007_STOP010_SignalsGoThroughAPidfdClosedAtEachExit(t *testing.T) {
	var be *signalCounter
	tp := startPodWith(t, `
metadata: {name: pidfds}
spec:
  restartPolicy: Always
  restartBackoff: {initialSeconds: 0.05, factor: 1, maxSeconds: 0.05}
  terminationGracePeriodSeconds: 3
  containers:
  - {name: flaky, image: IMAGE, command: [sh, -c, "exit 1"]}
  - {name: steady, image: IMAGE, command: [sh, -c, "trap 'exit 7' TERM; while true; do sleep 0.05; done"]}
  - {name: stubborn, image: IMAGE, command: [sh, -c, "trap '' TERM; while true; do sleep 0.05; done"]}
`, func(b *backend.Backend) engine.Backend {
		be = &signalCounter{Backend: b}
		return be
	})
	const restarts = 5
	deadline := time.Now().Add(90 * time.Second)
	for tp.container("flaky").RestartCount < restarts {
		if time.Now().After(deadline) {
			t.Fatalf("flaky did not restart %d times; events:\n%s", restarts, tp.timeline())
		}
		time.Sleep(20 * time.Millisecond)
	}
	fds := pidfds(t)
	for _, name := range []string{"steady", "stubborn"} {
		pid := tp.find(runtimev1.EventContainerStarted, name).PID
		held := false
		for _, p := range fds {
			held = held || p == pid
		}
		if !held {
			t.Errorf("no pidfd of %s's running instance (pid %d); pidfds %v", name, pid, fds)
		}
	}
	// steady, stubborn and at most one live instance of flaky: not one per instance it had.
	if n := instancePidfds(t, tp); n > 3 {
		t.Errorf("%d pidfds of instances after %d restarts of flaky, want at most 3 (one per live instance): %v", n, restarts, pidfds(t))
	}

	tp.stop(nil, false)
	tp.wait(60 * time.Second)
	if c := tp.container("steady").State.Terminated; c == nil || c.ExitCode == nil || *c.ExitCode != 7 {
		t.Errorf("steady ended %+v, want exit code 7 from its SIGTERM trap; events:\n%s", c, tp.timeline())
	}
	if c := tp.container("stubborn").State.Terminated; c == nil || c.Signal == nil || c.Signal.Name != "SIGKILL" {
		t.Errorf("stubborn ended %+v, want SIGKILL at the budget end; events:\n%s", c, tp.timeline())
	}
	if len(tp.all(runtimev1.EventSignalSent, "")) < 3 {
		t.Errorf("want SignalSent for steady's SIGTERM and stubborn's SIGTERM and SIGKILL; events:\n%s", tp.timeline())
	}
	if n := be.calls.Load(); n != 0 {
		t.Errorf("the backend's Signal (the OCI runtime's kill) was called %d times, want every signal through a pidfd", n)
	}
	if n := instancePidfds(t, tp); n != 0 {
		t.Errorf("%d pidfds of instances once the pod finished, want none: %v", n, pidfds(t))
	}
}
