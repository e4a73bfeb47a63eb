package model

import (
	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// readyAt is a probed pod (probe kind on a, successThreshold 2 for readiness) whose checks
// report at 300 and 1300 ms (results given), then a is reported Started and Ready at ms; the pod
// ends at 5 s.
func readyAt(kind string, ms int, results ...bool) *hist {
	return readyAfter(kind, ms, nil, results...)
}

// readyAfter is readyAt with the probe's command replaced by cmd (unless nil).
func readyAfter(kind string, ms int, cmd []string, results ...bool) *hist {
	h := probed(kind, withC("a", func(c *v1alpha1.Container) {
		if c.ReadinessProbe != nil {
			c.ReadinessProbe.SuccessThreshold = 2
		}
		for _, p := range []*v1alpha1.Probe{c.ReadinessProbe, c.StartupProbe} {
			if p != nil && cmd != nil {
				p.Exec.Command = cmd
			}
		}
	}))
	for i, ok := range results {
		h.checked(300+1000*i, kind, ok)
	}
	return h.add(ms, runtimev1.EventContainerReady, "a").
		exit(5000, "a", 0, "Completed").exit(5000, "b", 0, "Completed").fire(5001, "b").terminating(5002).
		finish(5100, v1alpha1.PodSucceeded, 0, "b", "Completed")
}

// readyFinal is a pod whose a (with a readinessProbe when probed) and b ran and exited; the final
// status reports a ready or not.
func readyFinal(ready, probed bool) *hist {
	var opts []podOpt
	if probed {
		opts = append(opts, withC("a", func(c *v1alpha1.Container) {
			c.ReadinessProbe = &v1alpha1.Probe{Exec: &v1alpha1.ExecAction{Command: []string{"x", "-quiet"}}}
		}))
	}
	h := twoMains(opts...).exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
		finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed")
	terminated := v1alpha1.ContainerState{Terminated: &v1alpha1.ContainerStateTerminated{ExitCode: i32(0), Reason: "Completed"}}
	h.final.ContainerStatuses = []v1alpha1.ContainerStatus{{Name: "a", Ready: ready, State: terminated}, {Name: "b", State: terminated}}
	return h
}

// completedAfterKill is a pod whose b depends on a Completed; a's liveness probe fails, the
// runtime stops it with SIGTERM and it exits 0 (Unhealthy); b starts at 1.5 s (and is not failed
// for a's failure: DEP-012 too) or is failed with DependencyFailed; the pod fails, decided by a.
func completedAfterKill(started bool) *hist {
	h := pod(mains("a", "b"), withC("b", dependsOnCompleted("a")), withC("a", func(c *v1alpha1.Container) {
		c.LivenessProbe = &v1alpha1.Probe{Exec: &v1alpha1.ExecAction{Command: []string{"x", "-quiet"}}, PeriodSeconds: 1, FailureThreshold: 1}
	})).add(0, runtimev1.EventPodCreated, "").start(100, "a").work(100, "a", probe.TypeStart).
		probeFailed(1300, runtimev1.ProbeLiveness).signal(1301, "a", "SIGTERM").exit(1400, "a", 0, "Unhealthy")
	if started {
		return h.start(1500, "b").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodFailed, 0, "a", "Failed")
	}
	return h.add(1401, runtimev1.EventDependencyFailed, "b", func(e *runtimev1.Event) { e.Reason = "DependencyFailed" }).
		fire(1402, "b").terminating(1403).finish(1500, v1alpha1.PodFailed, 0, "a", "Failed")
}

// completedOnRetry is a pod whose b depends on a Completed and a (OnFailure) exits 3, is
// restarted and exits 0; b is failed for a's first exit (early), or starts after a's second.
func completedOnRetry(early bool) *hist {
	h := pod(mains("a", "b"), withC("b", dependsOnCompleted("a")), withC("a", func(c *v1alpha1.Container) {
		p := v1alpha1.RestartPolicyOnFailure
		c.RestartPolicy = &p
	})).add(0, runtimev1.EventPodCreated, "").start(100, "a").exit(200, "a", 3, "Error")
	if early {
		h.add(201, runtimev1.EventDependencyFailed, "b", func(e *runtimev1.Event) { e.Reason = "DependencyFailed" })
	}
	h.add(202, runtimev1.EventContainerRestarting, "a").start(450, "a").exit(600, "a", 0, "Completed")
	if early {
		return h.fire(601, "a").terminating(602).finish(700, v1alpha1.PodFailed, 1, "b", "Failed")
	}
	return h.start(700, "b").exit(1000, "b", 0, "Completed").fire(1001, "b").terminating(1002).
		finish(1100, v1alpha1.PodSucceeded, 0, "b", "Completed")
}

// restartWhileUnready is a pod (OnFailure) whose web depends on db Ready; db becomes Ready at
// 300 ms and unready at 1 s (its readiness probe failed); web exits 1 at 1.5 s and restarts at
// restartMs (0: not before the stop at 5 s: RST-003 too, and the pod fails on web's exit).
func restartWhileUnready(restartMs int) *hist {
	h := pod(mains("db", "web"), policy(v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAll),
		withC("db", func(c *v1alpha1.Container) {
			c.ReadinessProbe = &v1alpha1.Probe{Exec: &v1alpha1.ExecAction{Command: []string{"x", "-quiet"}}, PeriodSeconds: 1, FailureThreshold: 1}
		}),
		withC("web", func(c *v1alpha1.Container) {
			c.DependsOn = []v1alpha1.Dependency{{Name: "db", Condition: v1alpha1.ConditionReady}}
		})).add(0, runtimev1.EventPodCreated, "").
		start(100, "db").add(300, runtimev1.EventContainerReady, "db").start(400, "web").
		add(1000, runtimev1.EventProbeFailed, "db", func(e *runtimev1.Event) { e.Probe, e.Reason = runtimev1.ProbeReadiness, "Unhealthy" }).
		exit(1500, "web", 1, "Error")
	if restartMs > 0 {
		h.start(restartMs, "web")
	}
	h.stop(5000, false).terminating(5001)
	if restartMs > 0 {
		h.signal(5002, "web", "SIGTERM").killed(5100, "web", "SIGTERM", "Stopped")
	}
	h.signal(5101, "db", "SIGTERM").killed(5200, "db", "SIGTERM", "Stopped")
	if restartMs > 0 {
		return h.finish(5300, v1alpha1.PodSucceeded, 0, "", "Stopped")
	}
	return h.finish(5300, v1alpha1.PodFailed, 1, "web", "Stopped")
}

func depCases() []modelCase {
	startup, readiness := runtimev1.ProbeStartup, runtimev1.ProbeReadiness
	return []modelCase{
		{"Ready after the startup probe's success conforms", readyAt(startup, 310, true), nil},
		{"Started and Ready before the startup probe's success breaks DEP-007", readyAt(startup, 250, true), []string{spec.DEP007}},
		{"Ready after successThreshold readiness successes conforms", readyAt(readiness, 1310, true, true), nil},
		{"Ready after one success of successThreshold 2 breaks DEP-008", readyAt(readiness, 310, true, true), []string{spec.DEP008}},
		{"Ready before any readiness success breaks DEP-008", readyAt(readiness, 200, false, true), []string{spec.DEP008}},
		{"Ready before any report of a probe command that is not the probe's check conforms", readyAfter(readiness, 200, []string{"sh", "-c", "true"}), nil},
		{"Ready before the postStart hook succeeded breaks DEP-007", twoMains(withC("a", postStart)).
			hook(110, "a", runtimev1.EventHookStarted, runtimev1.HookPostStart).add(120, runtimev1.EventContainerReady, "a").
			hook(130, "a", runtimev1.EventHookFinished, runtimev1.HookPostStart).
			exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed"), []string{spec.DEP007}},
		{"no container ready in a terminal pod's final status conforms", readyFinal(false, false), nil},
		{"an exited container without a readinessProbe still ready breaks DEP-009", readyFinal(true, false), []string{spec.DEP009}},
		{"an exited container with a readinessProbe still ready breaks DEP-008", readyFinal(true, true), []string{spec.DEP008}},
		{"a dependency's exit 0 after a liveness kill failing its dependent conforms", completedAfterKill(false), nil},
		{"a dependent started on its dependency's exit 0 after a liveness kill breaks DEP-010", completedAfterKill(true), []string{spec.DEP010, spec.DEP012}},
		{"a dependent started once its restarted dependency exited 0 conforms", completedOnRetry(false), nil},
		{"a dependent failed at its dependency's first exit, restarted after, breaks DEP-010", completedOnRetry(true), []string{spec.DEP010}},
		{"a dependent restarted after its back-off while its dependency is unready conforms", restartWhileUnready(1700), nil},
		{"a dependent restarted late, before the stop, while its dependency is unready conforms", restartWhileUnready(4000), nil},
		{"a dependent not restarted while its dependency is unready breaks DEP-011", restartWhileUnready(0), []string{spec.DEP011, spec.RST003}},
	}
}

// bothDelivered is a pod whose a and c got Notification n of x at 1 s (NotifierStarted both);
// a's action ran from 1.01 s to 2 s, c's from cStart for 400 ms.
func bothDelivered(cStart int) *hist {
	return ntfPod(func(h *hist) *hist {
		return h.deliver(1000, 1010, "a", "x", "n").deliver(1000, cStart+410-1000, "c", "x", "n").
			handler("a", "x", 1010, 2000, 0).handler("c", "x", cStart, cStart+400, 0).
			notification("n", "x", 900, view(4000, ok, rec(ok, "", dlv("a", ok, ""), dlv("c", ok, ""))))
	})
}

func crossDeliveryCases() []modelCase {
	return []modelCase{
		{"deliveries of one Notification to two containers at once conform", bothDelivered(1020), nil},
		{"a delivery whose action starts only once another container's ended breaks HB-021", bothDelivered(2100), []string{spec.HB021}},
	}
}

// lostDelivery is a pod whose a and c get Notification n of x at 1 s, its supervisor lost at
// 1.5 s while a's action runs (c's ended); a's delivery ends at 2 s recorded Failed
// ExitStatusLost, or (rerun) is run again then. The workloads report their ends.
func lostDelivery(rerun bool) *hist {
	return ntfPod(func(h *hist) *hist {
		h.notify(1000, "a", "x", "n", runtimev1.EventNotifierStarted).handler("a", "x", 1010, 1800, 0).
			deliver(1000, 300, "c", "x", "n").handler("c", "x", 1010, 1200, 0).crashAt(1500)
		for _, c := range []string{"a", "b", "c"} {
			h.work(4990, c, probe.TypeExit, code(0))
		}
		d := dlv("a", failed, "ExitStatusLost")
		if rerun {
			h.deliver(2000, 300, "a", "x", "n").handler("a", "x", 2010, 2200, 0)
			d = dlv("a", ok, "")
		} else {
			h.notify(2000, "a", "x", "n", runtimev1.EventNotifierFinished)
		}
		return h.notification("n", "x", 900, view(4000, d.Phase, rec(d.Phase, "", d, dlv("c", ok, ""))))
	})
}

func lostDeliveryCases() []modelCase {
	return []modelCase{
		{"a delivery lost with its supervisor recorded ExitStatusLost, not run again, conforms", lostDelivery(false), nil},
		{"a delivery lost with its supervisor run again breaks NTF-012", lostDelivery(true), []string{spec.NTF012}},
	}
}
