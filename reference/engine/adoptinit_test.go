package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"podspec.dev/podspec/reference/reaper"
)

// ranBackend answers InstanceRan as the OCI runtime would, and InRuntimeInit as runc's names
// tell (or, with sandbox, as a sandbox's host process cannot); nothing else of it is used.
type ranBackend struct {
	Backend
	ran, known bool
	sandbox    bool
}

func (b *ranBackend) InstanceRan(context.Context, string) (bool, bool) { return b.ran, b.known }

func (b *ranBackend) InRuntimeInit(_ context.Context, pid int) (bool, bool) {
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil || b.sandbox {
		return false, false
	}
	return strings.HasPrefix(string(comm), "runc:"), true
}

// TestSUP004_InstanceFoundInTheRuntimesInitIsWatchedUntilItRunsOrEnds: a supervisor lost just
// after it let a held instance start (its "go") leaves an instance recorded as created whose
// process is still runc's init for a moment and then runs the program. The adopter must see the
// start, not take the instance for one that never started at first sight (and delete it as its
// program begins). An init that ends instead is judged by the OCI runtime. The processes stand
// for runc's init by their name (comm "runc:[2:INIT]").
func TestSUP004_InstanceFoundInTheRuntimesInitIsWatchedUntilItRunsOrEnds(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh")
	}
	runcInit := filepath.Join(t.TempDir(), "runc:[2:INIT]")
	if err := os.Symlink(sh, runcInit); err != nil {
		t.Fatal(err)
	}
	// start runs script as a process named like runc's init.
	start := func(script string) int {
		c := &exec.Cmd{Path: runcInit, Args: []string{"sh", "-c", script}}
		if err := reaper.StartCmd(c); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); reaper.WaitCmd(c) })
		return c.Process.Pid
	}
	for _, tc := range []struct {
		name    string
		script  string
		be      ranBackend
		started bool
	}{
		{"its program runs after a moment in the init", "sleep 0.3; exec sleep 30", ranBackend{}, true},
		{"it ends in the init, unknown to the runtime", "sleep 0.3", ranBackend{ran: false, known: true}, false},
		{"it ends, and the runtime knows it as stopped", "sleep 0.3", ranBackend{ran: true, known: true}, true},
		// A sandbox's host process (gVisor) never tells: the runtime's state is watched instead.
		{"in a sandbox, the runtime knows it as running", "exec sleep 30", ranBackend{sandbox: true, ran: true, known: true}, true},
		{"in a sandbox, it stays created", "exec sleep 30", ranBackend{sandbox: true, ran: false, known: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pid := start(tc.script)
			time.Sleep(50 * time.Millisecond) // the process runs as the "init"
			e := &Engine{be: &tc.be, logf: t.Logf}
			inst := &instance{id: "pod-app-0", pid: pid}
			if got := e.startedUnrecorded(context.Background(), inst, true); got != tc.started {
				t.Errorf("startedUnrecorded = %v, want %v", got, tc.started)
			}
		})
	}
}
