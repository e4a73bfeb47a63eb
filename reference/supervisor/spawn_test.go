package supervisor

import (
	"context"
	"strings"
	"testing"

	"podspec.dev/podspec/reference/store"
)

// A prepared supervisor that fails before it can open its pod's log (a wrong state root, say)
// has only its own output to say why: Start reports it.
func TestPreparedSupervisorThatFailsEarlyReportsWhy(t *testing.T) {
	s, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pod, err := s.Create("early")
	if err != nil {
		t.Fatal(err)
	}
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
	s, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pod, err := s.Create("logged")
	if err != nil {
		t.Fatal(err)
	}
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
