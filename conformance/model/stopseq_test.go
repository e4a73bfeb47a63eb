package model

import (
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
)

// stopGrace records a stop request with a grace period.
func (h *hist) stopGrace(ms int, grace int64) *hist {
	return h.add(ms, runtimev1.EventStopRequested, "", func(e *runtimev1.Event) { e.GracePeriodSeconds = &grace })
}

// stopped finishes a pod whose stop request ended it: Succeeded, decided by nobody, reason Stopped.
func (h *hist) stopped(ms int) *hist {
	return h.finish(ms, v1alpha1.PodSucceeded, 0, "", termStopped)
}

// dependents is a pod whose api depends on db (Started), both started, stopped at 500 ms (grace
// 3 s: the reserve point is at 1.501 s); api is signalled at 502 ms and exits at apiExit, db is
// signalled at dbSignal and exits 10 ms later.
func dependents(apiExit, dbSignal int) *hist {
	h := pod(mains("db", "api"), withC("api", func(c *v1alpha1.Container) {
		c.DependsOn = []v1alpha1.Dependency{{Name: "db", Condition: v1alpha1.ConditionStarted}}
	})).add(0, runtimev1.EventPodCreated, "").start(100, "db").start(200, "api").
		stop(500, false).terminating(501).signal(502, "api", "SIGTERM")
	if apiExit > dbSignal {
		return h.signal(dbSignal, "db", "SIGTERM").exit(dbSignal+10, "db", 0, termStopped).exit(apiExit, "api", 0, termStopped).stopped(apiExit + 100)
	}
	return h.exit(apiExit, "api", 0, termStopped).signal(dbSignal, "db", "SIGTERM").exit(dbSignal+10, "db", 0, termStopped).stopped(dbSignal + 100)
}

// terminatingCondition finishes a stopped two-main pod whose final condition Terminating is s.
func terminatingCondition(s v1alpha1.ConditionStatus) *hist {
	h := twoMains().stop(500, false).terminating(501).signal(502, "a", "SIGTERM").signal(502, "b", "SIGTERM").
		exit(510, "a", 0, termStopped).exit(511, "b", 0, termStopped).stopped(600)
	h.final.Conditions = append(h.final.Conditions, v1alpha1.PodCondition{Type: v1alpha1.PodTerminating, Status: s})
	return h
}

// cancelledRestart is a pod whose a fails at 200 ms, its restart decided, when the stop at 500 ms
// cancels it; a's final state is state.
func cancelledRestart(state v1alpha1.ContainerState) *hist {
	h := twoMains(policy(v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAll)).
		exit(200, "a", 3, "Error").add(201, runtimev1.EventContainerRestarting, "a").
		stop(500, false).terminating(501).signal(502, "b", "SIGTERM").exit(510, "b", 0, termStopped).
		finish(600, v1alpha1.PodFailed, 3, "a", termStopped)
	h.final.ContainerStatuses = []v1alpha1.ContainerStatus{{Name: "a", State: state}}
	return h
}

// stoppedSidecar is a pod with sidecar s and main app, stopped at 500 ms: app exits on its
// SIGTERM, then s is sent sig at 520 ms and ends with code (or is killed by SIGKILL).
func stoppedSidecar(sig string, code int32, phase v1alpha1.PodPhase, podCode int32, decidedBy string) *hist {
	h := pod(sidecars("s"), mains("app")).add(0, runtimev1.EventPodCreated, "").start(100, "s").start(200, "app").
		stop(500, false).terminating(501).signal(502, "app", "SIGTERM").exit(510, "app", 0, termStopped).
		signal(520, "s", sig)
	if sig == "SIGKILL" {
		h.killed(530, "s", "SIGKILL", termStopped)
	} else {
		h.exit(530, "s", code, termStopped)
	}
	return h.finish(600, phase, podCode, decidedBy, termStopped)
}

// stubbornTwice is a pod whose stubborn ignores its SIGTERM, stopped with grace period first at
// 500 ms and again with grace period second at 1.5 s; it is sent SIGKILL at kill.
func stubbornTwice(first, second int64, kill int) *hist {
	thirty := int64(30)
	return pod(mains("stubborn"), func(p *v1alpha1.Pod) { p.Spec.TerminationGracePeriodSeconds = &thirty }).add(0, runtimev1.EventPodCreated, "").start(100, "stubborn").
		stopGrace(500, first).terminating(501).signal(502, "stubborn", "SIGTERM").stopGrace(1500, second).
		signal(kill, "stubborn", "SIGKILL").killed(kill+10, "stubborn", "SIGKILL", termStopped).stopped(kill + 100)
}

// forcedPod is forced.go's pod: app with a preStop hook, stubborn ignoring SIGTERM.
func forcedPod() *hist {
	return pod(mains("app", "stubborn"), withC("app", preStop)).add(0, runtimev1.EventPodCreated, "").
		start(100, "app").start(110, "stubborn")
}

// forcedEnd kills app and stubborn at ms with SIGKILL (reason Forced) and finishes the pod
// Failed with termination reason reason.
func (h *hist) forcedEnd(ms int, reason string) *hist {
	h.signal(ms, "app", "SIGKILL").signal(ms, "stubborn", "SIGKILL").
		killed(ms+10, "app", "SIGKILL", termForced).killed(ms+10, "stubborn", "SIGKILL", termForced)
	if reason == termForced {
		return h.finish(ms+100, v1alpha1.PodFailed, 1, "", reason)
	}
	return h.finish(ms+100, v1alpha1.PodSucceeded, 0, "", reason)
}

// graceZero is forcedPod stopped at 500 ms with grace period 0 and no --force.
func graceZero() *hist { return forcedPod().stopGrace(500, 0).terminating(501) }

// forcedDuring is forcedPod stopped gracefully at 500 ms, app's preStop hook started, then forced
// at 1.5 s; app and stubborn are killed at kill.
func forcedDuring(kill int) *hist {
	return forcedPod().stop(500, false).terminating(501).hook(502, "app", runtimev1.EventHookStarted, runtimev1.HookPreStop).
		signal(503, "stubborn", "SIGTERM").stop(1500, true).forcedEnd(kill, termStopped)
}

// underWay is a pod whose b is created at 400 ms and started at start, stopped at 500 ms.
func underWay(start int) *hist {
	h := pod(mains("a", "b")).add(0, runtimev1.EventPodCreated, "").start(100, "a").add(400, runtimev1.EventContainerCreated, "b")
	if start < 500 {
		h.start(start, "b").stop(500, false).terminating(501)
	} else {
		h.stop(500, false).terminating(501).start(start, "b")
	}
	return h.signal(start+1, "a", "SIGTERM").signal(start+1, "b", "SIGTERM").
		exit(start+10, "a", 0, termStopped).exit(start+11, "b", 0, termStopped).stopped(start + 100)
}

// startedAt is a pod whose init container i runs from 100 ms to 2 s, then app from 2.1 s,
// stopped at 3 s; its final startedAt is at ms.
func startedAt(ms int) *hist {
	h := pod(inits("i"), mains("app")).add(0, runtimev1.EventPodCreated, "").start(100, "i").exit(2000, "i", 0, "Completed").
		start(2100, "app").stop(3000, false).terminating(3001).signal(3002, "app", "SIGTERM").exit(3010, "app", 0, termStopped).
		stopped(3100)
	at := t0.Add(time.Duration(ms) * time.Millisecond)
	h.final.StartedAt = &at
	return h
}

// deadlineDuringStop is a pod with activeDeadlineSeconds 3 stopped at 500 ms with grace period
// 6 s, whose stubborn is killed at the budget end; it finishes with termination reason reason.
func deadlineDuringStop(reason string) *hist {
	three := int64(3)
	h := pod(mains("stubborn"), func(p *v1alpha1.Pod) { p.Spec.ActiveDeadlineSeconds = &three }).
		add(0, runtimev1.EventPodCreated, "").start(100, "stubborn").
		stopGrace(500, 6).terminating(501).signal(502, "stubborn", "SIGTERM").
		signal(6510, "stubborn", "SIGKILL").killed(6520, "stubborn", "SIGKILL", termStopped)
	if reason == termDeadline {
		h.finish(6600, v1alpha1.PodFailed, 1, "", reason)
	} else {
		h.stopped(6600)
	}
	at := t0.Add(100 * time.Millisecond)
	h.final.StartedAt = &at
	return h
}

func stopSeqCases() []modelCase {
	return []modelCase{
		{"a dependency signalled once its dependent exited conforms", dependents(510, 520), nil},
		{"a dependency signalled before its dependent exited breaks HB-011", dependents(800, 520), []string{spec.HB011}},
		{"a dependency signalled at the reserve point before its dependent exited conforms", dependents(1600, 1510), nil},
		{"a terminal pod with Terminating False conforms", terminatingCondition(v1alpha1.ConditionFalse), nil},
		{"a terminal pod with Terminating True breaks STOP-004", terminatingCondition(v1alpha1.ConditionTrue), []string{spec.STOP004}},
		{"a cancelled restart leaving the last termination conforms", cancelledRestart(v1alpha1.ContainerState{
			Terminated: &v1alpha1.ContainerStateTerminated{ExitCode: i32(3), Reason: "Error"}}), nil},
		{"a cancelled restart left waiting breaks STOP-005 (and STAT-008)", cancelledRestart(v1alpha1.ContainerState{
			Waiting: &v1alpha1.ContainerStateWaiting{Reason: "BackOff"}}), []string{spec.STOP005, spec.STAT008}},
		{"a sidecar stopped with its stop signal conforms", stoppedSidecar("SIGTERM", 0, v1alpha1.PodSucceeded, 0, ""), nil},
		{"a sidecar killed without its stop signal breaks STOP-009", stoppedSidecar("SIGKILL", 0, v1alpha1.PodSucceeded, 0, ""), []string{spec.STOP009}},
		{"a sidecar failing on its stop signal leaves the pod Succeeded", stoppedSidecar("SIGTERM", 1, v1alpha1.PodSucceeded, 0, ""), nil},
		{"a pod failed by its sidecar's exit breaks SIDE-002", stoppedSidecar("SIGTERM", 1, v1alpha1.PodFailed, 1, "s"),
			[]string{spec.SIDE002, spec.EXIT014, spec.EXIT014}},
		{"a later, longer grace period leaves the budget end", stubbornTwice(5, 60, 5510), nil},
		{"a later, longer grace period that moves the budget end breaks STOP-011", stubbornTwice(5, 60, 61510),
			[]string{spec.STOP011, spec.STOP010}},
		{"a later, shorter grace period ends the budget at its own end", stubbornTwice(60, 3, 4510), nil},
		{"a later, shorter grace period counted from the first request breaks STOP-012", stubbornTwice(60, 3, 3510),
			[]string{spec.STOP012, spec.TIME001}},
		{"a later, shorter grace period not acted on breaks STOP-012", stubbornTwice(60, 3, 7000), []string{spec.STOP012}},
		{"an early SIGKILL before the budget end a later request did not set is TIME-001's alone", stubbornTwice(60, 40, 5000), []string{spec.TIME001}},
		{"a stop with grace period 0 is a forced stop", graceZero().forcedEnd(502, termForced), nil},
		{"a stop with grace period 0 run as a graceful one breaks FORCE-001", graceZero().
			hook(502, "app", runtimev1.EventHookStarted, runtimev1.HookPreStop).signal(503, "stubborn", "SIGTERM").
			forcedEnd(600, termStopped), []string{spec.FORCE001, spec.FORCE001, spec.FORCE001, spec.FORCE006, spec.FORCE006, spec.FORCE003, spec.HOOK011}},
		{"a forced stop kills at once", forcedPod().stop(500, true).terminating(501).forcedEnd(510, termForced), nil},
		{"a forced stop whose SIGKILL comes late breaks FORCE-002", forcedPod().stop(500, true).terminating(501).forcedEnd(5000, termForced),
			[]string{spec.FORCE002, spec.FORCE002, spec.STOP010, spec.STOP010}},
		{"a forced stop during a graceful sequence kills at once", forcedDuring(1510), nil},
		{"a forced stop during a graceful sequence that awaits the preStop hook breaks FORCE-005", forcedDuring(20600),
			[]string{spec.FORCE005, spec.FORCE005, spec.STOP010, spec.STOP010}},
		{"a main start under way ends before PodTerminating", underWay(450), nil},
		{"a main started after PodTerminating breaks MAIN-004", underWay(505), []string{spec.MAIN004}},
		{"startedAt at the init container's start conforms", startedAt(100), nil},
		{"startedAt at the first main container's start breaks DL-001", startedAt(2100), []string{spec.DL001}},
		{"a deadline passing in the stop sequence keeps the reason", deadlineDuringStop(termStopped), nil},
		{"a deadline passing in the stop sequence that changes the reason breaks DL-003", deadlineDuringStop(termDeadline),
			[]string{spec.DL003, spec.DL003, spec.EXIT020, spec.EXIT020, spec.STAT006}},
	}
}
