package engine_test

import (
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
)

// A main container that failed and waits out its back-off when the pod is stopped: the stop
// cancels the restart (STOP-005), which makes that exit terminal (terminology), so it is a
// failing terminal exit: the pod ends Failed, decided by it, with its exit code (EXIT-014,
// EXIT-015, EXIT-017). The reference reported Succeeded, decided by nobody, exit code 0 (found
// by the conformance model, scenario backoff-wait).
func TestEXIT014_ACancelledRestartsFailureDecidesThePod(t *testing.T) {
	tp := startPod(t, `
apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: cancelled}
spec:
  restartPolicy: OnFailure
  terminationGracePeriodSeconds: 5
  restartBackoff: {initialSeconds: 30}
  containers:
  - {name: a, image: IMAGE, command: [sh, -c, "sleep 0.1; exit 3"]}
  - {name: keep, image: IMAGE, command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]}
`)
	tp.waitEvent(30*time.Second, "a's restart scheduled", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventContainerRestarting && ev.Container == "a"
	})
	tp.stop(nil, false)
	st := tp.wait(30 * time.Second)
	if st.Phase != v1alpha1.PodFailed || st.DecidedBy != "a" || st.ExitCode == nil || *st.ExitCode != 3 {
		t.Errorf("pod %s decidedBy %q exitCode %v; want Failed, decided by a, exit code 3; events:\n%s", st.Phase, st.DecidedBy, st.ExitCode, tp.timeline())
	}
	for _, cs := range st.ContainerStatuses {
		if cs.Name == "a" && (cs.State.Terminated == nil || cs.State.Terminated.ExitCode == nil || *cs.State.Terminated.ExitCode != 3) {
			t.Errorf("a: %+v, want its last termination (exit 3) as its state (STOP-005)", cs.State)
		}
	}
}

// A stop that cancels a pending restart leaves the container's last termination as its state
// and the one before it as its lastState: STAT-008 moves a termination to lastState only when a
// new instance starts, and the cancelled one never did. The reference left the last termination
// in both (found by the conformance suite's generated scenarios, seed 1007: a sidecar that
// crashed during the stop sequence; here main containers, the same path).
func TestSTAT008_ACancelledRestartKeepsThePreviousLastState(t *testing.T) {
	tp := startPod(t, `
apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: cancelled-last}
spec:
  restartPolicy: OnFailure
  terminationGracePeriodSeconds: 5
  restartBackoff: {initialSeconds: 0.1, factor: 600, maxSeconds: 60}
  containers:
  - {name: twice, image: IMAGE, command: [sh, -c, "sleep 0.1; exit 4"]}
  - {name: keep, image: IMAGE, command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]}
`)
	tp.waitEvent(30*time.Second, "twice's second restart scheduled (back-off 60 s)", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventContainerRestarting && ev.Container == "twice" && ev.RestartCount != nil && *ev.RestartCount == 1
	})
	tp.stop(nil, false)
	st := tp.wait(30 * time.Second)
	exited := map[string][]string{} // container → containerIDs of its ContainerExited, in order
	for _, ev := range tp.events() {
		if ev.Type == runtimev1.EventContainerExited {
			exited[ev.Container] = append(exited[ev.Container], ev.ContainerID)
		}
	}
	if len(exited["twice"]) != 2 {
		t.Fatalf("want two exits of twice; events:\n%s", tp.timeline())
	}
	want := map[string][2]string{"twice": {exited["twice"][1], exited["twice"][0]}} // state, lastState containerIDs
	for _, cs := range st.ContainerStatuses {
		w, ok := want[cs.Name]
		if !ok {
			continue
		}
		var state, last string
		if cs.State.Terminated != nil {
			state = cs.State.Terminated.ContainerID
		}
		if cs.LastState.Terminated != nil {
			last = cs.LastState.Terminated.ContainerID
		}
		if state != w[0] || last != w[1] {
			t.Errorf("%s: state.terminated %q, lastState.terminated %q; want %q and %q; events:\n%s", cs.Name, state, last, w[0], w[1], tp.timeline())
		}
	}
}
