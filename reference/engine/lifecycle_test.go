package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/engine"
)

func TestRST003_RestartsAreNewInstancesWithExponentialBackoff(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: restarts}
spec:
  restartPolicy: OnFailure
  restartBackoff: {initialSeconds: 0.2, factor: 2, maxSeconds: 1}
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: flaky
    image: IMAGE
    command: [sh, -c, "if [ -e /marker ]; then exit 9; fi; touch /marker; echo x >> /data/runs; n=$(wc -l < /data/runs); if [ $n -lt 3 ]; then exit 1; fi; exit 0"]
    volumeMounts: [{name: data, mountPath: /data}]
  - {name: steady, image: IMAGE, restartPolicy: Never, command: [sh, -c, "sleep 2"]}
`)
	// RST-010: between instances the container waits with reason BackOff.
	sawBackOff := false
	for deadline := time.Now().Add(60 * time.Second); !sawBackOff && time.Now().Before(deadline); {
		c := tp.container("flaky")
		sawBackOff = c.State.Waiting != nil && c.State.Waiting.Reason == "BackOff"
		if c.State.Terminated != nil && c.RestartCount == 2 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !sawBackOff {
		t.Errorf("never saw state.waiting.reason BackOff between instances")
	}
	st := tp.wait(90 * time.Second)
	if st.Phase != "Succeeded" {
		t.Fatalf("phase %s; events:\n%s", st.Phase, tp.timeline())
	}
	c := tp.container("flaky")
	if c.RestartCount != 2 {
		t.Errorf("restartCount %d, want 2 (RST-006)", c.RestartCount)
	}
	if c.State.Terminated == nil || *c.State.Terminated.ExitCode != 0 || c.LastState.Terminated == nil || *c.LastState.Terminated.ExitCode != 1 {
		t.Errorf("state %+v lastState %+v, want exit 0 now and exit 1 before (STAT-008)", c.State, c.LastState)
	}
	if tp.volume("data", "runs") != "x\nx\nx\n" {
		t.Errorf("runs = %q: the volume did not keep its content across restarts (RST-005), or an instance saw an old root filesystem (RST-004)", tp.volume("data", "runs"))
	}
	started := tp.all("ContainerStarted", "flaky")
	exited := tp.all("ContainerExited", "flaky")
	created := tp.all("ContainerCreated", "flaky")
	ids := map[string]bool{}
	for _, ev := range started {
		ids[ev.ContainerID] = true
	}
	if len(started) != 3 || len(ids) != 3 {
		t.Fatalf("%d starts with %d distinct containerIDs, want 3 and 3 (RST-004)", len(started), len(ids))
	}
	// RST-008: the n-th restart starts initial×factor^(n−1) after the previous instance's end.
	for i, want := range []time.Duration{200 * time.Millisecond, 400 * time.Millisecond} {
		if gap := created[i+1].Time.Sub(exited[i].Time); gap < want {
			t.Errorf("restart %d came %s after the exit, want at least %s", i+1, gap, want)
		}
	}
	// RST-007: the other container was not touched.
	if n := len(tp.all("ContainerStarted", "steady")); n != 1 || len(tp.all("SignalSent", "steady")) != 0 {
		t.Errorf("steady was started %d times or signalled while flaky restarted", n)
	}
}

func TestSTOP007_StopSignalsInReverseDependencyOrderAfterPreStop(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: stop-order}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 20
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: db
    image: IMAGE
    command: [sh, -c, "`+loop("db", 0)+`"]
    volumeMounts: [{name: data, mountPath: /data}]
    lifecycle: {preStop: {exec: {command: [sh, -c, "echo db-prestop >> /data/stop"]}}}
  - {name: api, image: IMAGE, command: [sh, -c, "`+loop("api", 0)+`"], volumeMounts: [{name: data, mountPath: /data}], dependsOn: [{name: db}]}
  - {name: web, image: IMAGE, command: [sh, -c, "`+loop("web", 0)+`"], volumeMounts: [{name: data, mountPath: /data}], dependsOn: [{name: api}]}
  - {name: worker, image: IMAGE, command: [sh, -c, "`+loop("worker", 0)+`"], volumeMounts: [{name: data, mountPath: /data}]}
`)
	stopWhenStarted("db", "api", "web", "worker")(tp)
	st := tp.wait(90 * time.Second)
	if st.Phase != "Succeeded" || st.Reason != "Stopped" {
		t.Errorf("phase %s reason %s, want Succeeded after a stop where everything exited 0", st.Phase, st.Reason)
	}
	lines := strings.Fields(tp.volume("data", "stop"))
	pos := map[string]int{}
	for i, l := range lines {
		pos[l] = i
	}
	if len(lines) != 5 {
		t.Fatalf("stop markers %q, want 5", lines)
	}
	for _, pair := range [][2]string{{"web", "api"}, {"api", "db"}, {"db-prestop", "db"}} {
		if pos[pair[0]] > pos[pair[1]] {
			t.Errorf("%s after %s in %q: dependents stop before their dependencies, preStop before the signal", pair[0], pair[1], lines)
		}
	}
	for _, c := range []string{"db", "api", "web", "worker"} {
		if n := len(tp.all("SignalSent", c)); n != 1 {
			t.Errorf("%s got %d signals, want exactly one stop signal (STOP-007)", c, n)
		}
	}
	tp.before(tp.find("StopRequested", ""), tp.find("PodTerminating", ""))
	tp.before(tp.find("PodTerminating", ""), tp.find("SignalSent", ""))
	if tp.find("HookStarted", "db").Hook != "preStop" {
		t.Errorf("hook event without hook name")
	}
}

func TestSTOP006_ReservePointSendsTheStopSignalDespiteALongPreStop(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: reserve}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 3
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    command: [sh, -c, "`+loop("app", 0)+`"]
    volumeMounts: [{name: data, mountPath: /data}]
    lifecycle: {preStop: {sleep: {seconds: 3}}}
`)
	stopWhenStarted("app")(tp)
	st := tp.wait(90 * time.Second)
	term := tp.find("PodTerminating", "")
	sig := tp.find("SignalSent", "app")
	// Budget 3 s, minimum stop window 2 s: the reserve point is 1 s after the stop began.
	if d := sig.Time.Sub(term.Time); d < 900*time.Millisecond || d > 3500*time.Millisecond {
		t.Errorf("stop signal %s after the stop began, want at the reserve point (1 s)", d)
	}
	if sig.Signal == nil || sig.Signal.Name != "SIGTERM" {
		t.Errorf("signal %+v, want SIGTERM", sig.Signal)
	}
	if tp.volume("data", "stop") != "app\n" || st.Phase != "Succeeded" {
		t.Errorf("app did not get its SIGTERM (markers %q) or pod %s", tp.volume("data", "stop"), st.Phase)
	}
}

func TestSTOP012_ShorterGraceMovesTheBudgetEndAndSIGKILLFollows(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: shorter}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 60
  containers:
  - {name: stubborn, image: IMAGE, command: [sh, -c, "trap '' TERM; while true; do sleep 0.05; done"]}
`)
	stopWhenStarted("stubborn")(tp)
	tp.stop(ptr(int64(120)), false) // STOP-011: a longer grace never moves the end later
	time.Sleep(200 * time.Millisecond)
	second := time.Now()
	tp.stop(ptr(int64(1)), false)
	st := tp.wait(20 * time.Second)
	kill := tp.all("SignalSent", "stubborn")
	last := kill[len(kill)-1]
	if last.Signal.Name != "SIGKILL" {
		t.Fatalf("last signal %s, want SIGKILL at the budget end", last.Signal.Name)
	}
	if d := last.Time.Sub(second); d < 900*time.Millisecond || d > 5*time.Second {
		t.Errorf("SIGKILL %s after the 1 s stop request, want about 1 s (STOP-010, STOP-012)", d)
	}
	c := tp.container("stubborn").State.Terminated
	if c.Signal == nil || c.Signal.Name != "SIGKILL" || c.Reason != "Stopped" || st.Phase != "Succeeded" {
		t.Errorf("stubborn %+v pod %s: SIGKILL at the budget end is not a failure", c, st.Phase)
	}
}

func TestFORCE005_ForcedStopDuringAGracefulStopTakesEffectAtOnce(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: escalate}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 60
  containers:
  - name: app
    image: IMAGE
    command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]
    lifecycle: {preStop: {exec: {command: [sleep, "50"]}}}
`)
	stopWhenStarted("app")(tp)
	tp.waitEvent(10*time.Second, "preStop hook", func(ev runtimev1.Event) bool { return ev.Type == "HookStarted" })
	// A runtime that let the forced stop wait would end the pod only when the preStop hook
	// (50 s) or the grace period (60 s) ends: the pod must end well before either, with no
	// tighter clock, which a loaded machine would break.
	tp.stop(nil, true)
	st := tp.wait(40 * time.Second)
	c := tp.container("app").State.Terminated
	if c.Reason != "Forced" || c.Signal == nil || c.Signal.Name != "SIGKILL" {
		t.Errorf("app %+v, want Forced by SIGKILL", c)
	}
	// The graceful sequence's termination reason stays; forced instances are no failures.
	if st.Reason != "Stopped" || st.Phase != "Succeeded" {
		t.Errorf("pod reason %s phase %s, want Stopped/Succeeded", st.Reason, st.Phase)
	}
}

func TestHOOK008_PostStartGatesStartedAndItsFailureIsAStartError(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: poststart}
spec:
  restartPolicy: Never
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: good
    image: IMAGE
    command: [sh, -c, "sleep 4"]
    volumeMounts: [{name: data, mountPath: /data}]
    lifecycle: {postStart: {exec: {command: [sh, -c, "sleep 0.2; echo hooked > /data/hook"]}}}
  - name: after
    image: IMAGE
    command: [sh, -c, "cat /data/hook > /data/seen"]
    volumeMounts: [{name: data, mountPath: /data}]
    dependsOn: [{name: good}]
  - name: bad
    image: IMAGE
    command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]
    lifecycle: {postStart: {exec: {command: [sh, -c, "exit 1"]}}}
`)
	st := tp.wait(90 * time.Second)
	// DEP-007: Started (which gates the dependent) only after postStart succeeded.
	if tp.volume("data", "seen") != "hooked\n" {
		t.Errorf("the dependent started before good's postStart hook finished")
	}
	tp.before(tp.find("HookFinished", "good"), tp.find("ContainerCreated", "after"))
	bad := tp.container("bad").State.Terminated
	if bad == nil || bad.Reason != "StartError" {
		t.Errorf("bad %+v, want reason StartError", bad)
	}
	if hf := tp.find("HookFinished", "bad"); hf.Result != "Failed" || hf.Hook != "postStart" {
		t.Errorf("HookFinished %+v, want postStart Failed", hf)
	}
	if st.Phase != "Failed" || st.DecidedBy != "bad" {
		t.Errorf("pod %s decided by %s, want Failed by bad", st.Phase, st.DecidedBy)
	}
	if len(tp.all("HookStarted", "bad")) != 1 {
		t.Errorf("a preStop hook ran for a container killed after its postStart failed (HOOK-011)")
	}
}

func TestHOOK009_FailingStartupAndLivenessProbesKillAsUnhealthy(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: probes}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: neverstarts
    image: IMAGE
    command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]
    startupProbe: {exec: {command: [test, -e, /nonexistent]}, periodSeconds: 1, failureThreshold: 2}
  - name: dies
    image: IMAGE
    command: [sh, -c, "touch /tmp/alive; (sleep 1; rm /tmp/alive) & `+loop("dies", 0)+`"]
    volumeMounts: [{name: data, mountPath: /data}]
    livenessProbe: {exec: {command: [test, -e, /tmp/alive]}, periodSeconds: 1, timeoutSeconds: 10, failureThreshold: 1}
`)
	st := tp.wait(90 * time.Second)
	for _, c := range []string{"neverstarts", "dies"} {
		term := tp.container(c).State.Terminated
		if term == nil || term.Reason != "Unhealthy" {
			t.Errorf("%s %+v, want reason Unhealthy", c, term)
		}
		pf := tp.find("ProbeFailed", c)
		if pf.Probe == "" {
			t.Errorf("ProbeFailed without probe name: %+v", pf)
		}
	}
	// HOOK-010: the liveness kill sends the stop signal, which the container saw.
	if tp.volume("data", "stop") != "dies\n" {
		t.Errorf("dies did not receive its stop signal on the liveness failure")
	}
	if st.Phase != "Failed" {
		t.Errorf("pod %s, want Failed: probe kills are failures", st.Phase)
	}
}

func TestSTAT004_OOMKilledIsMeasuredOnTheInstanceCgroup(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: oom}
spec:
  restartPolicy: Never
  containers:
  - name: hog
    image: IMAGE
    command: [tail, /dev/zero]
    resources: {limits: {memory: 32Mi}}
`)
	tp.wait(60 * time.Second)
	term := tp.container("hog").State.Terminated
	if term == nil || !term.OOMKilled || term.Reason != "OOMKilled" || term.Signal == nil || term.Signal.Name != "SIGKILL" || term.ExitCode != nil {
		t.Errorf("hog %+v, want oomKilled, reason OOMKilled, signal SIGKILL, no exitCode", term)
	}
}

// TestSTAT004_OOMKillOfAChildIsOOMKilled: the OOM killer kills a child of the instance's shell
// (its cgroup counts the kill), the shell survives and exits 1. The instance is oomKilled with
// exitCode 1 and reason Error (STAT-006: OOMKilled needs SIGKILL to have ended the process), for
// a main container and for a defer container alike.
func TestSTAT004_OOMKillOfAChildIsOOMKilled(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: oom-child}
spec:
  restartPolicy: Never
  containers:
  - name: shell
    image: IMAGE
    command: [sh, -c, "tail /dev/zero; exit 1"]
    resources: {limits: {memory: 32Mi}}
  deferContainers:
  - name: cleanup
    image: IMAGE
    command: [sh, -c, "tail /dev/zero; exit 1"]
    resources: {limits: {memory: 32Mi}}
`)
	st := tp.wait(90 * time.Second)
	check := func(name string, term *v1alpha1.ContainerStateTerminated) {
		t.Helper()
		if term == nil || !term.OOMKilled || term.ExitCode == nil || *term.ExitCode != 1 || term.Signal != nil || term.Reason != v1alpha1.ReasonError {
			t.Errorf("%s %+v, want oomKilled, exitCode 1, reason Error (the OOM killer killed its child)", name, term)
		}
	}
	check("shell", tp.container("shell").State.Terminated)
	check("cleanup", deferStatus(tp, st, "cleanup").State.Terminated)
}

// TestSTAT004_OOMKillOfANotifierActionIsOOMKilled: an exec notifier's action runs in the
// instance (its cgroup) and the OOM killer kills it; the instance's shell later exits 0 on its
// stop signal, and the instance is oomKilled, its reason its stop reason (no SIGKILL ended it).
func TestSTAT004_OOMKillOfANotifierActionIsOOMKilled(t *testing.T) {
	t.Parallel()
	env := newNtfEnv(t)
	tp := env.start(fmt.Sprintf(ntfPodHead, "oom-action", "oom-action")+`
  containers:
  - name: app
    image: IMAGE
    command: [sh, -c, "trap 'exit 0' TERM; sleep 300 & wait"]
    resources: {limits: {memory: 32Mi}}
    notifiers:
    - name: hog
      timeoutSeconds: 120
      action: {exec: {command: [tail, /dev/zero]}}
`, true)
	env.waitStarted(tp, "app")
	rec := env.notifyPod("hog", "oom-action", "hog", 90*time.Second)
	if d := delivery(t, rec, "app"); d.Phase != v1alpha1.NotificationFailed {
		t.Fatalf("delivery = %+v, want Failed (the OOM killer killed the action)", d)
	}
	grace := int64(3)
	tp.stop(&grace, false)
	tp.wait(60 * time.Second)
	term := tp.container("app").State.Terminated
	if term == nil || !term.OOMKilled || term.Reason != v1alpha1.ReasonStopped {
		t.Errorf("app %+v, want oomKilled with its stop reason", term)
	}
}

// TestRES003_ForkBombStopsAtTheDefaultPidsLimit: a container that sets no pids limit forks
// 3000 sleepers; its cgroup's default limit stops it at 2048 processes (the forking subshell
// dies when fork fails; the count uses only shell builtins, which need no fork). A defer that
// sets no limit gets the same default.
func TestRES003_ForkBombStopsAtTheDefaultPidsLimit(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: forkbomb}
spec:
  restartPolicy: Never
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: bomb
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "(i=0; while [ $i -lt 3000 ]; do sleep 120 & i=$((i+1)); done) 2>/dev/null; set -- /proc/[0-9]*; echo $# > /data/count"]
  deferContainers:
  - name: after
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, "cat /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/pids.max > /data/defer-max 2>/dev/null; true"]
`)
	tp.wait(180 * time.Second)
	n, err := strconv.Atoi(strings.TrimSpace(tp.volume("data", "count")))
	if err != nil {
		t.Fatalf("count %q: %v", tp.volume("data", "count"), err)
	}
	// The limit counts every process of the cgroup: the shell, its subshell and the sleepers.
	if n > 2048 || n < 2000 {
		t.Errorf("bomb had %d processes, want at most the default pids limit 2048 (and near it: the bomb did fork)", n)
	}
	if got := strings.TrimSpace(tp.volume("data", "defer-max")); got != "2048" {
		t.Errorf("the defer's pids.max = %q, want the default 2048", got)
	}
}

func TestSEC008_ContainersShareOneSandboxWithLoopbackOnlyAndNoNewPrivileges(t *testing.T) {
	t.Parallel()
	container := func(name string) string {
		return `
  - name: ` + name + `
    image: IMAGE
    volumeMounts: [{name: data, mountPath: /data}]
    command:
    - sh
    - -c
    - |
      echo "$(hostname) $(readlink /proc/self/ns/net) $(readlink /proc/self/ns/ipc) $(readlink /proc/self/ns/uts) $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ,) $(grep NoNewPrivs /proc/self/status | tr -d '\t ')" > /data/` + name
	}
	tp := startPod(t, `
metadata: {name: sandbox}
spec:
  restartPolicy: Never
  volumes: [{name: data, emptyDir: {}}]
  containers:`+container("a")+container("b"))
	if st := tp.wait(90 * time.Second); st.Phase != "Succeeded" {
		t.Fatalf("phase %s; events:\n%s", st.Phase, tp.timeline())
	}
	a, b := strings.TrimSpace(tp.volume("data", "a")), strings.TrimSpace(tp.volume("data", "b"))
	if a == "" || a != b {
		t.Errorf("containers see different sandboxes:\n a: %s\n b: %s", a, b)
	}
	f := strings.Fields(a)
	if len(f) != 6 || f[0] != "sandbox" || f[4] != "lo," || f[5] != "NoNewPrivs:1" {
		t.Errorf("sandbox view %q, want hostname sandbox, only lo, NoNewPrivs:1", a)
	}
}

func TestSTOP010_HugeGracePeriodSaturatesInsteadOfKillingAtOnce(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: huge-grace}
spec:
  restartPolicy: Never
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    command: [sh, -c, "trap 'sleep 0.5; exit 7' TERM; touch /data/app.trap; while true; do sleep 0.05; done"]
    volumeMounts: [{name: data, mountPath: /data}]
`)
	waitRunning(tp, "app")
	// 2^63-1 seconds: a budget computed by wrapping multiplication ends in the past, and the
	// instance gets SIGKILL within milliseconds and never its stop signal.
	tp.stop(ptr(int64(math.MaxInt64)), false)
	tp.wait(20 * time.Second)
	sigs := tp.all("SignalSent", "app")
	if len(sigs) != 1 || sigs[0].Signal.Name != "SIGTERM" {
		t.Fatalf("signals %v, want only the stop signal; events:\n%s", sigs, tp.timeline())
	}
	c := tp.container("app").State.Terminated
	if c.ExitCode == nil || *c.ExitCode != 7 || c.Reason != "Stopped" {
		t.Errorf("app %+v, want exit 7 of its TERM handler, Stopped", c)
	}
}

func TestAStopRequestSentAgainIsRecordedOnce(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: stop-once}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 30
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    command: [sh, -c, "trap 'sleep 1; exit 0' TERM; touch /data/app.trap; while true; do sleep 0.05; done"]
    volumeMounts: [{name: data, mountPath: /data}]
`)
	waitRunning(tp, "app")
	ctx := context.Background()
	// A command that lost the answer sends the same request (same ID) again: one record.
	for i := 0; i < 3; i++ {
		if err := tp.e.StopOnce(ctx, "req-1", ptr(int64(20)), false); err != nil {
			t.Fatal(err)
		}
	}
	// Another request is recorded, even when it changes nothing (STOP-011).
	if err := tp.e.StopOnce(ctx, "req-2", ptr(int64(25)), false); err != nil {
		t.Fatal(err)
	}
	tp.wait(20 * time.Second)
	if reqs := tp.all("StopRequested", ""); len(reqs) != 2 {
		t.Errorf("%d StopRequested, want 2 (req-1 once, req-2); events:\n%s", len(reqs), tp.timeline())
	}
}

// countingBackend counts the instances between the start of their creation and the end of
// their start.
type countingBackend struct {
	engine.Backend
	mu       sync.Mutex
	cur, max int
}

func (b *countingBackend) enter() {
	b.mu.Lock()
	b.cur++
	b.max = max(b.max, b.cur)
	b.mu.Unlock()
}

func (b *countingBackend) leave() {
	b.mu.Lock()
	b.cur--
	b.mu.Unlock()
}

func (b *countingBackend) CreateInstance(ctx context.Context, pod *engine.PodInfo, sb json.RawMessage, req *engine.InstanceRequest) (int, error) {
	b.enter()
	pid, err := b.Backend.CreateInstance(ctx, pod, sb, req)
	if err != nil {
		b.leave()
	}
	return pid, err
}

func (b *countingBackend) StartInstance(ctx context.Context, id string) error {
	defer b.leave()
	return b.Backend.StartInstance(ctx, id)
}

func TestCreateParallelismBoundsTheInstancesBeingCreated(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "  - {name: c%d, image: IMAGE, command: [sleep, \"600\"]}\n", i)
	}
	var cb *countingBackend
	tp := startPod(t, `
metadata: {name: many}
spec:
  restartPolicy: Never
  containers:
`+b.String()+`  - {name: last, image: IMAGE, command: [sleep, "600"], dependsOn: [{name: c0, condition: Started}]}
`, func(o *engine.Options) {
		cb = &countingBackend{Backend: o.Backend}
		o.Backend = cb
		o.CreateParallelism = 2
	})
	for i := 0; i < 10; i++ {
		tp.waitEvent(60*time.Second, "all started", func(ev runtimev1.Event) bool {
			return ev.Type == "ContainerStarted" && ev.Container == fmt.Sprintf("c%d", i)
		})
	}
	started := tp.waitEvent(60*time.Second, "last started", func(ev runtimev1.Event) bool { return ev.Type == "ContainerStarted" && ev.Container == "last" })
	tp.before(tp.find("ContainerStarted", "c0"), started) // dependsOn still orders them
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if cb.max > 2 || cb.max < 1 {
		t.Errorf("%d instances were being created at once, want at most 2 (CreateParallelism)", cb.max)
	}
}
