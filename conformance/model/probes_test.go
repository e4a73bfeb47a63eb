package model

import (
	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// probed is a pod whose main container a (created at 90 ms, started at 100 ms, its workload's
// start reported at 100 ms) has a probe of kind with periodSeconds 1 and failureThreshold 2,
// changed by opts; the case writes the probe's reports and what follows.
func probed(kind string, opts ...podOpt) *hist {
	check := &v1alpha1.Probe{Exec: &v1alpha1.ExecAction{Command: []string{"podspec-probe", "check"}}, PeriodSeconds: 1, FailureThreshold: 2}
	set := withC("a", func(c *v1alpha1.Container) {
		switch kind {
		case runtimev1.ProbeStartup:
			c.StartupProbe = check
		case runtimev1.ProbeLiveness:
			c.LivenessProbe = check
		default:
			c.ReadinessProbe = check
		}
	})
	return pod(append([]podOpt{mains("a", "b"), set}, opts...)...).add(0, runtimev1.EventPodCreated, "").
		add(90, runtimev1.EventContainerCreated, "a").start(100, "a").start(110, "b").work(100, "a", probe.TypeStart)
}

// checked records a probe command's report at ms, a success when ok.
func (h *hist) checked(ms int, kind string, ok bool) *hist {
	code := 0
	if !ok {
		code = 1
	}
	return h.report(ms, "a", probe.RoleCheck, kind, probe.TypeCheck, code)
}

func (h *hist) probeFailed(ms int, kind string) *hist {
	return h.add(ms, runtimev1.EventProbeFailed, "a", func(e *runtimev1.Event) { e.Probe, e.Reason = kind, "Unhealthy" })
}

// unhealthy ends a probed pod whose a was killed after its probe failed at ms: b exits 0 100 ms
// later, and the pod fails, decided by a (killed by sig).
func (h *hist) unhealthy(ms int, sig, reason string) *hist {
	return h.killed(ms, "a", sig, reason).exit(ms+100, "b", 0, "Completed").fire(ms+101, "b").terminating(ms+102).
		finish(ms+200, v1alpha1.PodFailed, 128+int32(signal(sig).Number), "a", "Failed")
}

func sleepPreStop(c *v1alpha1.Container) {
	c.Lifecycle = &v1alpha1.Lifecycle{PreStop: &v1alpha1.LifecycleHandler{Sleep: &v1alpha1.SleepAction{Seconds: 1}}}
}

// sleptB is stoppedB with b's preStop sleep hook of 1 s ending at ms.
func sleptB(ms int) *hist {
	return stoppedBWith(func(h *hist) *hist {
		return h.hook(1003, "b", runtimev1.EventHookStarted, runtimev1.HookPreStop).hook(ms, "b", runtimev1.EventHookFinished, runtimev1.HookPreStop).
			signal(ms+1, "b", "SIGTERM").killed(ms+50, "b", "SIGTERM", "StoppedByPolicy")
	}, withC("b", sleepPreStop))
}

// failedPostStart is a pod whose a's postStart hook fails at 300 ms and a ends with reason.
func failedPostStart(reason string) *hist {
	return pod(mains("a", "b"), withC("a", postStart)).add(0, runtimev1.EventPodCreated, "").
		start(100, "a").hook(110, "a", runtimev1.EventHookStarted, runtimev1.HookPostStart).start(120, "b").
		add(300, runtimev1.EventHookFinished, "a", func(e *runtimev1.Event) { e.Hook, e.Result = runtimev1.HookPostStart, runtimev1.ResultFailed }).
		signal(301, "a", "SIGKILL").unhealthy(400, "SIGKILL", reason)
}

func envHook(c *v1alpha1.Container) {
	postStart(c)
	c.Env = []v1alpha1.EnvVar{{Name: "GREETING", Value: "hello"}}
}

// hookSaw is a pod whose a has env GREETING=hello and a postStart hook that reports seeing env.
func hookSaw(env map[string]string) *hist {
	h := twoMains(withC("a", envHook)).hook(110, "a", runtimev1.EventHookStarted, runtimev1.HookPostStart)
	h.probe = append(h.probe, probe.Event{Container: "a", Role: probe.RoleHook, Handler: "postStart", Type: probe.TypeReport,
		Report: &probe.Report{Env: env}, Received: t0.Add(120e6)})
	return h.hook(130, "a", runtimev1.EventHookFinished, runtimev1.HookPostStart).
		exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
		finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed")
}

func probeCases() []modelCase {
	startup, liveness, readiness := runtimev1.ProbeStartup, runtimev1.ProbeLiveness, runtimev1.ProbeReadiness
	return []modelCase{
		{"a startup probe failing twice, then the kill, Unhealthy, conforms", probed(startup).
			checked(300, startup, false).checked(1300, startup, false).probeFailed(1310, startup).signal(1311, "a", "SIGKILL").
			unhealthy(1400, "SIGKILL", "Unhealthy"), nil},
		{"a startup probe given up after one failure of failureThreshold 2 breaks HOOK-009", probed(startup).
			checked(300, startup, false).probeFailed(310, startup).signal(311, "a", "SIGKILL").
			unhealthy(400, "SIGKILL", "Unhealthy"), []string{spec.HOOK009}},
		{"an instance killed for its startup probe ending Error breaks HOOK-009", probed(startup).
			checked(300, startup, false).checked(1300, startup, false).probeFailed(1310, startup).signal(1311, "a", "SIGKILL").
			unhealthy(1400, "SIGKILL", "Error"), []string{spec.HOOK009, spec.STAT006}},
		{"a liveness failure stopped with the stop signal conforms", probed(liveness).
			checked(300, liveness, false).checked(1300, liveness, false).probeFailed(1310, liveness).signal(1311, "a", "SIGTERM").
			unhealthy(1400, "SIGTERM", "Unhealthy"), nil},
		{"a liveness failure killed without its stop signal breaks HOOK-010", probed(liveness).
			checked(300, liveness, false).checked(1300, liveness, false).probeFailed(1310, liveness).signal(1311, "a", "SIGKILL").
			unhealthy(1400, "SIGKILL", "Unhealthy"), []string{spec.HOOK010}},
		{"a Ready container not Ready at the failureThreshold-th failure conforms", probed(readiness).
			checked(300, readiness, true).add(310, runtimev1.EventContainerReady, "a").
			checked(1300, readiness, false).checked(2300, readiness, false).probeFailed(2310, readiness).
			exit(5000, "a", 0, "Completed").exit(5000, "b", 0, "Completed").fire(5001, "b").terminating(5002).
			finish(5100, v1alpha1.PodSucceeded, 0, "b", "Completed"), nil},
		{"a Ready container not Ready only after one more failure breaks HOOK-013", probed(readiness).
			checked(300, readiness, true).add(310, runtimev1.EventContainerReady, "a").
			checked(1300, readiness, false).checked(2300, readiness, false).checked(3300, readiness, false).probeFailed(3310, readiness).
			exit(5000, "a", 0, "Completed").exit(5000, "b", 0, "Completed").fire(5001, "b").terminating(5002).
			finish(5100, v1alpha1.PodSucceeded, 0, "b", "Completed"), []string{spec.HOOK013}},
		{"an instance whose postStart hook failed ending StartError conforms", failedPostStart(v1alpha1.ReasonStartError), nil},
		{"an instance that exited on its own while its postStart hook ran, the hook failing after, conforms", pod(mains("a", "b"), withC("a", postStart)).
			add(0, runtimev1.EventPodCreated, "").start(100, "a").work(100, "a", probe.TypeStart).hook(110, "a", runtimev1.EventHookStarted, runtimev1.HookPostStart).
			start(120, "b").work(290, "a", probe.TypeExit, code(0)).
			add(300, runtimev1.EventHookFinished, "a", func(e *runtimev1.Event) { e.Hook, e.Result = runtimev1.HookPostStart, runtimev1.ResultFailed }).
			exit(310, "a", 0, "Completed").exit(1000, "b", 0, "Completed").fire(1001, "b").terminating(1002).
			finish(1100, v1alpha1.PodSucceeded, 0, "b", "Completed"), nil},
		{"an instance whose postStart hook failed ending Error breaks HOOK-008", failedPostStart(v1alpha1.ReasonError), []string{spec.HOOK008, spec.STAT006}},
		{"a preStop hook before the stop sequence breaks HOOK-011", twoMains(withC("a", preStop)).
			hook(500, "a", runtimev1.EventHookStarted, runtimev1.HookPreStop).hook(510, "a", runtimev1.EventHookFinished, runtimev1.HookPreStop).
			exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed"), []string{spec.HOOK011}},
		{"a sleep hook that waited its seconds conforms", sleptB(2010), nil},
		{"a sleep hook that ended at once breaks HOOK-004", sleptB(1010), []string{spec.HOOK004}},
		{"a hook that sees the container's environment conforms", hookSaw(map[string]string{"GREETING": "hello"}), nil},
		{"a hook without the container's environment breaks HOOK-003", hookSaw(map[string]string{"PATH": "/bin"}), []string{spec.HOOK003}},
	}
}
