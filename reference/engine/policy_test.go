package engine_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
)

// TestEXIT014_PodResult runs the examples of docs/spec/exit.md: each row names what happens,
// and the pod's phase, exit code and deciding container.
// afterB makes container a wait until b runs (b's /data/b.trap marker), so that a's exit cannot
// fire the exit policy before b was even created on a slow machine — b would then never start,
// and a pod with a main container that never started is Failed (EXIT-014).
const afterB = `until [ -e /data/b.trap ]; do sleep 0.05; done; `

func TestEXIT014_PodResult(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		manifest string
		// act runs after the pod started (stop requests, external kills); may be nil.
		act       func(tp *testPod)
		force     bool
		phase     string
		exitCode  int32
		decidedBy string
		reason    string
		check     func(t *testing.T, tp *testPod)
	}{
		{
			name: "All: a exits 0; then b exits 3 — b decides with 3",
			manifest: `
metadata: {name: all-fail}
spec:
  restartPolicy: Never
  containers:
  - {name: a, image: IMAGE, command: [sh, -c, "exit 0"]}
  - {name: b, image: IMAGE, command: [sh, -c, "sleep 0.3; exit 3"]}
`,
			phase: "Failed", exitCode: 3, decidedBy: "b", reason: "Failed",
		},
		{
			name: "All: both exit 0 — Succeeded; decided by the last",
			manifest: `
metadata: {name: all-ok}
spec:
  restartPolicy: Never
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: a, image: IMAGE, command: [sh, -c, "touch /data/a.ran; exit 0"], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: b, image: IMAGE, command: [sh, -c, "until [ -e /data/a.ran ]; do sleep 0.05; done; sleep 0.5; exit 0"], volumeMounts: [{name: data, mountPath: /data}]}
`,
			phase: "Succeeded", exitCode: 0, decidedBy: "b", reason: "Completed",
		},
		{
			name: "Any: a exits 0; b ignores SIGTERM and dies of SIGKILL at the budget end — Succeeded by a",
			manifest: `
metadata: {name: any-ok}
spec:
  restartPolicy: Never
  exitPolicy: Any
  terminationGracePeriodSeconds: 1
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: a, image: IMAGE, command: [sh, -c, "` + afterB + `sleep 0.5; exit 0"], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: b, image: IMAGE, command: [sh, -c, "trap '' TERM; touch /data/b.trap; while true; do sleep 0.05; done"], volumeMounts: [{name: data, mountPath: /data}]}
`,
			phase: "Succeeded", exitCode: 0, decidedBy: "a", reason: "Completed",
			check: func(t *testing.T, tp *testPod) {
				b := tp.container("b").State.Terminated
				if b == nil || b.Signal == nil || b.Signal.Name != "SIGKILL" || b.ExitCode != nil || b.Reason != "StoppedByPolicy" {
					t.Errorf("b terminated %+v, want signal SIGKILL, no exitCode, reason StoppedByPolicy", b)
				}
			},
		},
		{
			name: "Any: a exits 0; b exits 143 on its SIGTERM — b decides with 143",
			manifest: `
metadata: {name: any-143}
spec:
  restartPolicy: Never
  exitPolicy: Any
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: a, image: IMAGE, command: [sh, -c, "` + afterB + `sleep 0.5; exit 0"], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: b, image: IMAGE, command: [sh, -c, "` + loop("b", 143) + `"], volumeMounts: [{name: data, mountPath: /data}]}
`,
			phase: "Failed", exitCode: 143, decidedBy: "b", reason: "Completed",
			check: func(t *testing.T, tp *testPod) {
				if tp.volume("data", "stop") != "b\n" {
					t.Errorf("b did not receive SIGTERM inside the container")
				}
				b := tp.container("b").State.Terminated
				if b == nil || b.ExitCode == nil || *b.ExitCode != 143 || b.Signal != nil {
					t.Errorf("b terminated %+v, want exitCode 143 and no signal (STAT-003)", b)
				}
			},
		},
		{
			name: "AnyFailure: a is killed by SIGKILL from outside; b is stopped and exits 0 — a decides with 137",
			manifest: `
metadata: {name: anyfailure}
spec:
  restartPolicy: Never
  exitPolicy: AnyFailure
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: a, image: IMAGE, command: [sh, -c, "while true; do sleep 0.05; done"]}
  - {name: b, image: IMAGE, command: [sh, -c, "` + loop("b", 0) + `"], volumeMounts: [{name: data, mountPath: /data}]}
`,
			act: func(tp *testPod) {
				ev := tp.waitEvent(20*time.Second, "a started", func(ev runtimev1.Event) bool { return ev.Type == "ContainerStarted" && ev.Container == "a" })
				tp.waitEvent(20*time.Second, "b started", func(ev runtimev1.Event) bool { return ev.Type == "ContainerStarted" && ev.Container == "b" })
				syscall.Kill(ev.PID, syscall.SIGKILL)
			},
			phase: "Failed", exitCode: 137, decidedBy: "a", reason: "Failed",
			check: func(t *testing.T, tp *testPod) {
				a := tp.container("a").State.Terminated
				if a == nil || a.Signal == nil || a.Signal.Number != 9 || a.ExitCode != nil || a.Reason != "Signaled" {
					t.Errorf("a terminated %+v, want signal {SIGKILL 9}, no exitCode, reason Signaled (STAT-002)", a)
				}
			},
		},
		{
			name: "stop: a exits 0 and b exits 1 on SIGTERM — b decides with 1",
			manifest: `
metadata: {name: stop-fail}
spec:
  restartPolicy: Never
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: a, image: IMAGE, command: [sh, -c, "` + loop("a", 0) + `"], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: b, image: IMAGE, command: [sh, -c, "` + loop("b", 1) + `"], volumeMounts: [{name: data, mountPath: /data}]}
`,
			act:   stopWhenStarted("a", "b"),
			phase: "Failed", exitCode: 1, decidedBy: "b", reason: "Stopped",
			check: func(t *testing.T, tp *testPod) {
				for _, c := range []string{"a", "b"} {
					if r := tp.container(c).State.Terminated.Reason; r != "Stopped" {
						t.Errorf("%s reason %s, want Stopped", c, r)
					}
				}
			},
		},
		{
			name: "stop: b ignores SIGTERM until SIGKILL — Succeeded; decided by nobody",
			manifest: `
metadata: {name: stop-ok}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: a, image: IMAGE, command: [sh, -c, "` + loop("a", 0) + `"], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: b, image: IMAGE, command: [sh, -c, "trap '' TERM; while true; do sleep 0.05; done"]}
`,
			act:   stopWhenStarted("a", "b"),
			phase: "Succeeded", exitCode: 0, decidedBy: "", reason: "Stopped",
		},
		{
			name: "stop while an init container runs — Failed with 1; no main container started",
			manifest: `
metadata: {name: stop-init}
spec:
  restartPolicy: Never
  volumes: [{name: data, emptyDir: {}}]
  initContainers:
  - {name: setup, image: IMAGE, command: [sh, -c, "` + loop("setup", 0) + `"], volumeMounts: [{name: data, mountPath: /data}]}
  containers:
  - {name: a, image: IMAGE, command: [sh, -c, "exit 0"]}
`,
			act:   stopWhenStarted("setup"),
			phase: "Failed", exitCode: 1, decidedBy: "", reason: "Stopped",
		},
		{
			name: "forced stop while a and b run — Failed with 1; every instance Forced by SIGKILL",
			manifest: `
metadata: {name: forced}
spec:
  restartPolicy: Never
  containers:
  - name: a
    image: IMAGE
    command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]
    lifecycle: {preStop: {exec: {command: [sh, -c, "sleep 5"]}}}
  - {name: b, image: IMAGE, command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]}
`,
			act:   func(tp *testPod) { waitRunning(tp, "a", "b") },
			force: true,
			phase: "Failed", exitCode: 1, decidedBy: "", reason: "Forced",
			check: func(t *testing.T, tp *testPod) {
				for _, c := range []string{"a", "b"} {
					term := tp.container(c).State.Terminated
					if term == nil || term.Reason != "Forced" || term.Signal == nil || term.Signal.Name != "SIGKILL" {
						t.Errorf("%s terminated %+v, want Forced by SIGKILL (FORCE-002)", c, term)
					}
				}
				if len(tp.all("HookStarted", "")) != 0 {
					t.Errorf("a forced stop ran a preStop hook (FORCE-003)")
				}
			},
		},
		{
			name: "deadline passes; both exit 0 on SIGTERM — Failed with 1; reason DeadlineExceeded",
			manifest: `
metadata: {name: deadline}
spec:
  restartPolicy: Never
  activeDeadlineSeconds: 1
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - {name: a, image: IMAGE, command: [sh, -c, "` + loop("a", 0) + `"], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: b, image: IMAGE, command: [sh, -c, "` + loop("b", 0) + `"], volumeMounts: [{name: data, mountPath: /data}]}
`,
			phase: "Failed", exitCode: 1, decidedBy: "", reason: "DeadlineExceeded",
			check: func(t *testing.T, tp *testPod) {
				// DL-002: the stop begins activeDeadlineSeconds after startedAt.
				st := tp.status()
				req := tp.find("StopRequested", "")
				if d := req.Time.Sub(*st.StartedAt); d < time.Second || d > 5*time.Second {
					t.Errorf("deadline stop %s after startedAt, want about 1s", d)
				}
				if req.Reason != "DeadlineExceeded" {
					t.Errorf("StopRequested reason %q", req.Reason)
				}
				for _, c := range []string{"a", "b"} {
					// A container the deadline overtook before it was created never ran: it is
					// recorded skipped with the pod's termination reason instead.
					var r string
					switch state := tp.container(c).State; {
					case state.Terminated != nil:
						r = state.Terminated.Reason
					case state.Skipped != nil:
						r = state.Skipped.Reason
					}
					if r != "DeadlineExceeded" {
						t.Errorf("%s reason %q, want DeadlineExceeded (state %+v)", c, r, tp.container(c).State)
					}
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tp := startPod(t, tc.manifest)
			if tc.act != nil {
				tc.act(tp)
			}
			if tc.force {
				tp.stop(nil, true)
			}
			st := tp.wait(90 * time.Second)
			if string(st.Phase) != tc.phase || st.ExitCode == nil || *st.ExitCode != tc.exitCode || st.DecidedBy != tc.decidedBy || st.Reason != tc.reason {
				code := int32(-1)
				if st.ExitCode != nil {
					code = *st.ExitCode
				}
				t.Errorf("result phase=%s exitCode=%d decidedBy=%q reason=%q, want %s/%d/%q/%q; events:\n%s",
					st.Phase, code, st.DecidedBy, st.Reason, tc.phase, tc.exitCode, tc.decidedBy, tc.reason, tp.timeline())
			}
			fin := tp.find("PodFinished", "")
			if string(fin.Phase) != tc.phase || fin.DecidedBy != tc.decidedBy {
				t.Errorf("PodFinished event %+v disagrees with the status", fin)
			}
			if tc.check != nil {
				tc.check(t, tp)
			}
		})
	}
}

// stopWhenStarted requests a graceful stop once the named containers run and, for those
// whose command is loop(), once their TERM trap is set.
func stopWhenStarted(names ...string) func(tp *testPod) {
	return func(tp *testPod) {
		waitRunning(tp, names...)
		tp.stop(nil, false)
	}
}

// waitRunning waits until the named containers run and their loop() traps are set.
func waitRunning(tp *testPod, names ...string) {
	tp.t.Helper()
	for _, n := range names {
		tp.waitEvent(60*time.Second, n+" started", func(ev runtimev1.Event) bool { return ev.Type == "ContainerStarted" && ev.Container == n })
		for _, c := range append(tp.spec.Spec.InitContainers, tp.spec.Spec.Containers...) {
			if c.Name == n && strings.Contains(strings.Join(c.Command, " "), "/data/"+n+".trap") {
				deadline := time.Now().Add(60 * time.Second)
				for !tp.exists("data", n+".trap") && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
			}
		}
	}
}
