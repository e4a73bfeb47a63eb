package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
)

// exitUnseen keeps the engine from seeing the end of one container's instances for
// outputDrain (their output is never reported written), so that a postStart hook failing
// because the container ended is seen before the end: the random runner's seed 1033, where a
// container exited 12 ms after its start and its exit was recorded after its hook's failure.
// With holdExec, the hook's exec waits until the OCI runtime reports the container stopped
// (the exec then fails: "container not running").
type exitUnseen struct {
	*backend.Backend
	container string
	holdExec  bool
}

func (b *exitUnseen) gated(id string) bool { return strings.Contains(id, "-"+b.container+"-") }

func (b *exitUnseen) OutputWritten(id, logPath string) <-chan struct{} {
	if b.gated(id) {
		return make(chan struct{})
	}
	return b.Backend.OutputWritten(id, logPath)
}

func (b *exitUnseen) Exec(ctx context.Context, id string, argv []string, begun func()) (int, error) {
	if b.holdExec && b.gated(id) {
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if st, err := b.Runtime.State(ctx, id); err != nil || st.Status == "stopped" {
				break
			}
		}
	}
	return b.Backend.Exec(ctx, id, argv, begun)
}

// TestHOOK008_APostStartHookFailingBecauseItsContainerExitedIsNoStartError: a container that
// exits 0 on its own while its postStart hook runs, or before its exec begins, ended on its
// own: the hook's failure (the exec killed with the container's processes, or refused: the
// container is not running) kills nothing (no SignalSent), the reason is Completed and no
// failure (STAT-006, EXIT-012), so that the pod's result is decided by the other main
// container's failure (EXIT-015). The reference used to kill it as for a failed hook and record
// StartError, a failure.
func TestHOOK008_APostStartHookFailingBecauseItsContainerExitedIsNoStartError(t *testing.T) {
	for _, tc := range []struct {
		name, command, hook string
		holdExec            bool
	}{
		{"the exec after the exit", "exit 0", "exit 0", true},
		{"the exit under the running hook", "sleep 0.5; exit 0", "sleep 30", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gate := &exitUnseen{container: "quick", holdExec: tc.holdExec}
			tp := startPodWith(t, `
metadata: {name: poststart-exited}
spec:
  restartPolicy: Never
  containers:
  - name: quick
    image: IMAGE
    command: [sh, -c, "`+tc.command+`"]
    lifecycle: {postStart: {exec: {command: [sh, -c, "`+tc.hook+`"]}}}
  - name: slow
    image: IMAGE
    command: [sh, -c, "sleep 3; exit 3"]
`, func(b *backend.Backend) engine.Backend { gate.Backend = b; return gate })
			st := tp.wait(90 * time.Second)
			if hf := tp.find(runtimev1.EventHookFinished, "quick"); hf.Hook != runtimev1.HookPostStart || hf.Result != runtimev1.ResultFailed {
				t.Fatalf("quick's HookFinished %+v, want postStart Failed (the shape did not occur); events:\n%s", hf, tp.timeline())
			}
			if sig := tp.all(runtimev1.EventSignalSent, "quick"); len(sig) != 0 {
				t.Errorf("quick was sent %s after its process ended; events:\n%s", sig[0].Signal.Name, tp.timeline())
			}
			q := tp.container("quick").State.Terminated
			if q == nil || q.Reason != v1alpha1.ReasonCompleted || q.ExitCode == nil || *q.ExitCode != 0 {
				t.Errorf("quick ended %+v, want Completed with exit code 0; events:\n%s", q, tp.timeline())
			}
			if st.Phase != v1alpha1.PodFailed || st.DecidedBy != "slow" || st.ExitCode == nil || *st.ExitCode != 3 {
				t.Errorf("pod %s decided by %q, want Failed by slow with exit code 3; events:\n%s", st.Phase, st.DecidedBy, tp.timeline())
			}
		})
	}
}
