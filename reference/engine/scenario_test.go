package engine_test

import (
	"testing"
	"time"
)

func TestINIT001_InitContainersRunInOrderOnce(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: init-order}
spec:
  restartPolicy: Never
  volumes: [{name: data, emptyDir: {}}]
  initContainers:
  - {name: first, image: IMAGE, command: [sh, -c, "echo first >> /data/order"], volumeMounts: [{name: data, mountPath: /data}]}
  - {name: second, image: IMAGE, command: [sh, -c, "echo second >> /data/order"], volumeMounts: [{name: data, mountPath: /data}]}
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "echo app >> /data/order"], volumeMounts: [{name: data, mountPath: /data}]}
`)
	st := tp.wait(90 * time.Second)
	if st.Phase != "Succeeded" {
		t.Fatalf("phase %s, want Succeeded; events:\n%s", st.Phase, tp.timeline())
	}
	if got, want := tp.volume("data", "order"), "first\nsecond\napp\n"; got != want {
		t.Errorf("order written inside the containers = %q, want %q", got, want)
	}
	tp.before(tp.find("ContainerExited", "first"), tp.find("ContainerCreated", "second"))
	tp.before(tp.find("ContainerExited", "second"), tp.find("ContainerCreated", "app"))
	if n := len(tp.all("ContainerStarted", "first")); n != 1 {
		t.Errorf("first init container started %d times, want 1", n)
	}
}

// loop is a shell body that runs until its stop signal, writing NAME to /data/stop on SIGTERM
// and exiting with CODE.
// Once the trap is set it creates /data/NAME.trap, which stopWhenStarted waits for.
func loop(name string, code int) string {
	return `trap 'echo ` + name + ` >> /data/stop; exit ` + itoa(code) + `' TERM; touch /data/` + name + `.trap; while true; do sleep 0.05; done`
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}

func TestINIT002_InitContainerWithPodRestartAlwaysIsRestartedOnFailure(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: init-retry}
spec:
  restartPolicy: Always
  restartBackoff: {initialSeconds: 0.05}
  volumes: [{name: data, emptyDir: {}}]
  initContainers:
  - {name: flaky, image: IMAGE, command: [sh, -c, "if [ -e /data/tried ]; then exit 0; fi; touch /data/tried; exit 4"], volumeMounts: [{name: data, mountPath: /data}]}
  containers:
  - {name: app, image: IMAGE, restartPolicy: Never, command: [sh, -c, "exit 0"]}
`)
	st := tp.wait(90 * time.Second)
	if st.Phase != "Succeeded" {
		t.Fatalf("phase %s; events:\n%s", st.Phase, tp.timeline())
	}
	c := tp.container("flaky")
	if c.RestartCount != 1 || c.State.Terminated == nil || *c.State.Terminated.ExitCode != 0 {
		t.Errorf("flaky: restartCount %d state %+v, want one restart then exit 0", c.RestartCount, c.State)
	}
	if c.LastState.Terminated == nil || *c.LastState.Terminated.ExitCode != 4 {
		t.Errorf("flaky lastState = %+v, want the failed instance (exit 4) (STAT-008)", c.LastState)
	}
}

func TestINIT003_FailedInitContainerFailsThePodAndSkipsMains(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: init-fail}
spec:
  restartPolicy: Never
  initContainers:
  - {name: setup, image: IMAGE, command: [sh, -c, "exit 5"]}
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "exit 0"]}
`)
	st := tp.wait(90 * time.Second)
	if st.Phase != "Failed" || st.Reason != "Failed" || st.DecidedBy != "setup" || st.ExitCode == nil || *st.ExitCode != 5 {
		t.Errorf("result phase=%s reason=%s decidedBy=%s exitCode=%v, want Failed/Failed/setup/5", st.Phase, st.Reason, st.DecidedBy, st.ExitCode)
	}
	app := tp.container("app")
	if app.State.Skipped == nil || app.State.Skipped.Reason != "Failed" {
		t.Errorf("app state %+v, want skipped with the termination reason Failed (MAIN-003)", app.State)
	}
	if len(tp.all("ContainerCreated", "app")) != 0 {
		t.Errorf("a main container was created after an init container failed")
	}
}

func TestSIDE001_SidecarGatesOnStartedRestartsAndStopsLastInReverseOrder(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: sidecars}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  restartBackoff: {initialSeconds: 0.05}
  volumes: [{name: data, emptyDir: {}}]
  initContainers:
  - name: one
    image: IMAGE
    restartPolicy: Always
    command: [sh, -c, "sleep 0.3; touch /tmp/up; `+loop("one", 0)+`"]
    startupProbe: {exec: {command: [test, -e, /tmp/up]}, periodSeconds: 1, timeoutSeconds: 10, failureThreshold: 10}
    volumeMounts: [{name: data, mountPath: /data}]
  - name: two
    image: IMAGE
    restartPolicy: Always
    command: [sh, -c, "if [ ! -e /data/two-ran ]; then touch /data/two-ran; exit 3; fi; touch /data/two-again; `+loop("two", 0)+`"]
    volumeMounts: [{name: data, mountPath: /data}]
  containers:
  # app ends the pod only once two's second instance runs (under load, creating it can take
  # longer than any fixed sleep).
  - {name: app, image: IMAGE, command: [sh, -c, "until [ -e /data/two-again ]; do sleep 0.05; done; sleep 0.3; echo app >> /data/stop"], volumeMounts: [{name: data, mountPath: /data}]}
`)
	st := tp.wait(90 * time.Second)
	if st.Phase != "Succeeded" || st.DecidedBy != "app" {
		t.Errorf("phase %s decidedBy %s, want Succeeded by app: sidecar exits never count (SIDE-002); events:\n%s", st.Phase, st.DecidedBy, tp.timeline())
	}
	// HB-002: the next container starts only once the sidecar is Started (startup probe passed).
	tp.before(tp.find("StartupProbeSucceeded", "one"), tp.find("ContainerCreated", "two"))
	// SIDE-001: a sidecar that exits (even with 3) is restarted.
	if n := len(tp.all("ContainerStarted", "two")); n < 2 {
		t.Errorf("sidecar two started %d times, want a restart after its exit", n)
	}
	// HB-015: sidecars stop after the main containers, in reverse list order.
	if got, want := tp.volume("data", "stop"), "app\ntwo\none\n"; got != want {
		t.Errorf("stop order seen inside the containers = %q, want %q", got, want)
	}
}

func TestDEP007_DependsOnStartedReadyAndCompleted(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: deps}
spec:
  restartPolicy: Never
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: db
    image: IMAGE
    command: [sh, -c, "sleep 0.4; touch /tmp/ready; sleep 5"]
    readinessProbe: {exec: {command: [test, -e, /tmp/ready]}, periodSeconds: 1, timeoutSeconds: 10}
  - name: migrate
    image: IMAGE
    command: [sh, -c, "sleep 0.2; echo migrated >> /data/log"]
    volumeMounts: [{name: data, mountPath: /data}]
  - name: api
    image: IMAGE
    command: [sh, -c, "echo api >> /data/log"]
    volumeMounts: [{name: data, mountPath: /data}]
    dependsOn: [{name: db, condition: Ready}, {name: migrate, condition: Completed}]
  - name: web
    image: IMAGE
    command: [sh, -c, "exit 0"]
    dependsOn: [{name: api}]
`)
	st := tp.wait(90 * time.Second)
	if st.Phase != "Succeeded" {
		t.Fatalf("phase %s; events:\n%s", st.Phase, tp.timeline())
	}
	tp.before(tp.find("ContainerReady", "db"), tp.find("ContainerCreated", "api"))
	tp.before(tp.find("ContainerExited", "migrate"), tp.find("ContainerCreated", "api"))
	tp.before(tp.find("ContainerStarted", "api"), tp.find("ContainerCreated", "web"))
	if got := tp.volume("data", "log"); got != "migrated\napi\n" {
		t.Errorf("log = %q, want migrate's line before api's", got)
	}
	// HB-018: independent containers do not wait for each other.
	if tp.find("ContainerCreated", "migrate").Seq > tp.find("ContainerReady", "db").Seq {
		t.Errorf("migrate waited for db although it does not depend on it")
	}
}

func TestDEP012_DependencyFailureFailsDependentsAtOnceAndCascades(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: depfail}
spec:
  restartPolicy: Never
  containers:
  - {name: db, image: IMAGE, command: [sh, -c, "exit 2"]}
  - {name: api, image: IMAGE, command: [sh, -c, "exit 0"], dependsOn: [{name: db, condition: Completed}]}
  - {name: web, image: IMAGE, command: [sh, -c, "exit 0"], dependsOn: [{name: api}]}
`)
	st := tp.wait(90 * time.Second)
	for _, name := range []string{"api", "web"} {
		c := tp.container(name)
		term := c.State.Terminated
		if term == nil || term.Reason != "DependencyFailed" || term.ExitCode != nil || term.Signal != nil {
			t.Errorf("%s state %+v, want terminated DependencyFailed with neither exitCode nor signal", name, c.State)
		}
		if len(tp.all("ContainerCreated", name)) != 0 {
			t.Errorf("%s was created although its dependency failed", name)
		}
	}
	tp.before(tp.find("DependencyFailed", "api"), tp.find("DependencyFailed", "web"))
	if st.Phase != "Failed" || st.DecidedBy != "db" || *st.ExitCode != 2 {
		t.Errorf("result %s decidedBy=%s exit=%d, want Failed by db with 2", st.Phase, st.DecidedBy, *st.ExitCode)
	}
}
