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

// exitFirst holds the postStart exec of one container until its process has ended (the OCI
// runtime reports it stopped), and keeps the engine from seeing that end for outputDrain (its
// output is never reported written): the hook then fails because the container is no longer
// running while the engine still takes the instance for a live one — the random runner's seed
// 1033, where a container exited 12 ms after its start and its exit was recorded after the
// hook's failure.
type exitFirst struct {
	*backend.Backend
	container string
}

func (b *exitFirst) gated(id string) bool { return strings.Contains(id, "-"+b.container+"-") }

func (b *exitFirst) OutputWritten(id, logPath string) <-chan struct{} {
	if b.gated(id) {
		return make(chan struct{})
	}
	return b.Backend.OutputWritten(id, logPath)
}

func (b *exitFirst) Exec(ctx context.Context, id string, argv []string, begun func()) (int, error) {
	if b.gated(id) {
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if st, err := b.Runtime.State(ctx, id); err != nil || st.Status == "stopped" {
				break
			}
		}
	}
	return b.Backend.Exec(ctx, id, argv, begun)
}

// TestHOOK008_APostStartHookFailingBecauseItsContainerExitedIsNoStartError: a container that
// exits 0 at once, its postStart exec failing because the container is no longer running, ended
// on its own: no kill (no SignalSent), reason Completed and no failure (STAT-006, EXIT-012),
// so that the pod's result is decided by the other main container's failure (EXIT-015). The
// reference used to kill it as for a failed hook and record StartError, a failure.
func TestHOOK008_APostStartHookFailingBecauseItsContainerExitedIsNoStartError(t *testing.T) {
	t.Parallel()
	gate := &exitFirst{container: "quick"}
	tp := startPodWith(t, `
metadata: {name: poststart-exited}
spec:
  restartPolicy: Never
  containers:
  - name: quick
    image: IMAGE
    command: [sh, -c, "exit 0"]
    lifecycle: {postStart: {exec: {command: [sh, -c, "exit 0"]}}}
  - name: slow
    image: IMAGE
    command: [sh, -c, "sleep 2; exit 3"]
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
}
