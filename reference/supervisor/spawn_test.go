package supervisor

import (
	"context"
	"strings"
	"testing"
	"time"

	"podspec.dev/podspec/reference/store"
)

// A prepared supervisor that fails before it can open its pod's log (a wrong state root, say)
// has only its own output to say why: Start reports it.
func TestPreparedSupervisorThatFailsEarlyReportsWhy(t *testing.T) {
	pod := newPod(t, "early")
	p, err := Prepare([]string{"/bin/sh", "-c", `read -r name <&3; echo "pod $name: not found under /elsewhere" >&2; exit 1`})
	if err != nil {
		t.Fatal(err)
	}
	err = p.Start(context.Background(), pod)
	if err == nil || !strings.Contains(err.Error(), "pod early: not found under /elsewhere") {
		t.Fatalf("Start: %v; want the supervisor's own words", err)
	}
}

// Once a supervisor has its log, its output goes there and Start no longer waits on the pipe.
func TestPreparedSupervisorWritingItsLogReportsTheLog(t *testing.T) {
	pod := newPod(t, "logged")
	script := `read -r name <&3; exec >>"$0" 2>&1; echo "from the log"; exit 1`
	p, err := Prepare([]string{"/bin/sh", "-c", script, pod.Path(store.SupervisorLog)})
	if err != nil {
		t.Fatal(err)
	}
	err = p.Start(context.Background(), pod)
	if err == nil || !strings.Contains(err.Error(), "from the log") {
		t.Fatalf("Start: %v; want the log's last lines", err)
	}
}

// Two commands adopting a pod at the same moment (after a supervisor's loss: a verb and a
// notification's delivery) each start a supervisor; the one that finds the pod held exits at
// once, and its command waits for the other instead of failing (found by the conformance suite's
// generated scenarios, seed 1025: `stop` right after `notify` failed with "supervisor of POD
// exited (<nil>)").
func TestSpawnLosingTheRaceWaitsForTheOtherSupervisor(t *testing.T) {
	pod := newPod(t, "raced")
	// The other supervisor: it holds the pod's lock at once and answers only after a while.
	lock, err := pod.TrySupervisorLock()
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		time.Sleep(300 * time.Millisecond)
		ln, err := listen(pod.Path(store.SocketFile))
		if err != nil {
			t.Error(err)
			return
		}
		go func() { <-ctx.Done(); ln.Close() }()
		serve(ctx, ln, map[string]Handler{OpPing: func(context.Context, *Request) (any, error) { return nil, nil }}, t.Logf)
	}()
	// Ours finds the pod held and exits 0 at once, as the supervise verb does.
	if err := Spawn(ctx, pod, []string{"/bin/true"}); err != nil {
		t.Fatalf("Spawn: %v; want it to wait for the supervisor that holds the pod", err)
	}
	if _, err := Call(ctx, pod, &Request{Op: OpPing}); err != nil {
		t.Errorf("the other supervisor does not answer after Spawn returned: %v", err)
	}
}

// newPod creates pod name in a store of its own.
func newPod(t *testing.T, name string) *store.Pod {
	t.Helper()
	s, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pod, err := s.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	return pod
}
