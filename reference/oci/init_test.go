package oci

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// InInit, on each OCI runtime installed: a created container's host process is the runtime's
// init until the start, then the program (runc and crun, whose inits have names of their own);
// gVisor's sandbox process tells nothing, before or after (the state decides there). runc's
// inits are named "runc:[2:INIT]", crun's "crun", runsc's sandbox "exe".
func TestInInitTellsTheRuntimesInitFromTheProgram(t *testing.T) {
	runsc, _ := filepath.Abs("../../scripts/runsc-host-network")
	for _, tc := range []struct {
		name, binary, needs string
		sandbox             bool
	}{
		{"runc", "runc", "runc", false},
		{"crun", "crun", "crun", false},
		{"runsc", runsc, "runsc", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := exec.LookPath(tc.needs); err != nil {
				t.Skipf("%s not installed", tc.needs)
			}
			e := newTestEnv(t)
			e.rt = &Runtime{Binary: tc.binary, Root: e.rt.Root}
			ctx := context.Background()
			b := e.bundle(t, "held", ContainerConfig{Args: []string{"sleep", "30"}})
			pid, err := e.rt.Create(ctx, "held", b, IO{})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			t.Cleanup(func() {
				if err := e.rt.Kill(context.Background(), "held", syscall.SIGKILL, false); err != nil && !errors.Is(err, ErrNotRunning) {
					t.Logf("cleanup: kill: %v", err)
				}
				_ = e.rt.Delete(context.Background(), "held", true)
			})
			inInit, tells := e.rt.InInit(ctx, pid)
			if tc.sandbox {
				if tells {
					t.Fatalf("created, in a sandbox: InInit = %v, tells; want no telling", inInit)
				}
			} else if !inInit || !tells {
				t.Fatalf("created, not started: InInit = %v, tells %v; want the runtime's init", inInit, tells)
			}
			if err := e.rt.Start(ctx, "held"); err != nil {
				t.Fatalf("start: %v", err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				inInit, tells = e.rt.InInit(ctx, pid)
				if tc.sandbox || !inInit || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if tc.sandbox && tells || !tc.sandbox && (inInit || !tells) {
				t.Errorf("started: InInit = %v, tells %v; want the program (or, in a sandbox, no telling)", inInit, tells)
			}
		})
	}
}
