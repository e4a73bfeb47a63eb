package engine_test

import (
	"testing"
	"time"
)

// TestTIME003_StopSignalFollowsThePreStopHookAtOnce stops a pod whose one main container
// has a quick preStop hook, and the other one exits before the hook ends, so nothing else happens after it: the stop signal must follow
// the hook's end at once, not wait for some later change of the pod (the reserve point is
// 298 s away). It caught a lost wake-up: the waiter for the hook was woken before the hook was
// marked done.
func TestTIME003_StopSignalFollowsThePreStopHookAtOnce(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: prestop-wake}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 300
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: IMAGE
    command: [sh, -c, "`+loop("app", 0)+`"]
    volumeMounts: [{name: data, mountPath: /data}]
    lifecycle: {preStop: {exec: {command: [sh, -c, "sleep 0.5"]}}}
  - {name: plain, image: IMAGE, command: [sh, -c, "`+loop("plain", 0)+`"], volumeMounts: [{name: data, mountPath: /data}]}
`)
	stopWhenStarted("app", "plain")(tp)
	tp.wait(60 * time.Second)
	hook, sig := tp.find("HookFinished", "app"), tp.find("SignalSent", "app")
	if d := sig.Time.Sub(hook.Time); d < 0 || d > time.Second {
		t.Errorf("stop signal %s after the preStop hook ended, want at once (TIME-003); events:\n%s", d, tp.timeline())
	}
}
