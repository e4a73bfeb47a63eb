package model

import (
	"strings"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// uid sets an event's podUID.
func uid(u string) func(*runtimev1.Event) { return func(e *runtimev1.Event) { e.PodUID = u } }

// ownPolicy gives a container its own restart policy.
func ownPolicy(r v1alpha1.RestartPolicy) func(*v1alpha1.Container) {
	return func(c *v1alpha1.Container) { c.RestartPolicy = &r }
}

// backoffOf sets the pod's back-off.
func backoffOf(initial, factor, maxSeconds, reset float64) podOpt {
	return func(p *v1alpha1.Pod) {
		p.Spec.RestartBackoff = &v1alpha1.Backoff{InitialSeconds: f64(initial), Factor: f64(factor), MaxSeconds: f64(maxSeconds), ResetAfterSeconds: f64(reset)}
	}
}

// terminated puts into the final status the container's terminated state as its last
// ContainerExited records it, changed by mod.
func (h *hist) terminated(c string, mod func(*v1alpha1.ContainerStateTerminated)) *hist {
	var last *runtimev1.Event
	for i := range h.ev {
		if e := &h.ev[i]; e.Type == runtimev1.EventContainerExited && e.Container == c {
			last = e
		}
	}
	t := &v1alpha1.ContainerStateTerminated{ExitCode: last.ExitCode, Signal: last.Signal, Reason: last.Reason, ContainerID: last.ContainerID}
	mod(t)
	h.final.ContainerStatuses = append(h.final.ContainerStatuses, v1alpha1.ContainerStatus{Name: c, State: v1alpha1.ContainerState{Terminated: t}})
	return h
}

// initialized sets the final condition Initialized True since ms.
func (h *hist) initialized(ms int) *hist {
	at := t0.Add(time.Duration(ms) * time.Millisecond)
	h.final.Conditions = append(h.final.Conditions, v1alpha1.PodCondition{Type: v1alpha1.PodInitialized, Status: v1alpha1.ConditionTrue, LastTransitionTime: &at})
	return h
}

// finishedAt sets the final status' finishedAt to ms.
func (h *hist) finishedAt(ms int) *hist {
	at := t0.Add(time.Duration(ms) * time.Millisecond)
	h.final.FinishedAt = &at
	return h
}

// withUID sets the final status' UID.
func (h *hist) withUID(u string) *hist {
	h.final.UID = u
	return h
}

// restartedA is a pod whose a fails once and is restarted (restart policy OnFailure), b runs on
// and every event carries the pod's UID; a's second instance carries secondUID instead.
func restartedA(secondUID string) *hist {
	u := uid(podUID)
	return pod(mains("a", "b"), policy(v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAll)).
		add(0, runtimev1.EventPodCreated, "", u).start(100, "a", u).start(110, "b", u).
		exit(300, "a", 1, "Error", u).start(600, "a", uid(secondUID)).exit(900, "a", 0, "Completed", uid(secondUID)).
		exit(1000, "b", 0, "Completed", u).fire(1001, "b").terminating(1002).
		finish(1100, v1alpha1.PodSucceeded, 0, "b", "Completed")
}

// initThenSidecar is a pod whose regular init container j exits 0 at 300 ms and whose sidecar s,
// listed after it, starts at 400 ms; Initialized became True at initAt.
func initThenSidecar(initAt int) *hist {
	return pod(inits("j"), sidecars("s"), mains("a"), policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAll)).
		add(0, runtimev1.EventPodCreated, "").start(100, "j").exit(300, "j", 0, "Completed").start(400, "s").start(500, "a").
		exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
		signal(1003, "s", "SIGTERM").killed(1100, "s", "SIGTERM", "StoppedByPolicy").
		finish(1200, v1alpha1.PodSucceeded, 0, "a", "Completed").initialized(initAt)
}

// segvThenZero is the row all-segv of the exit matrix: a dies of SIGSEGV, then b exits 0, under
// exitPolicy All and restartPolicy Never.
func segvThenZero() *hist {
	return twoMains(policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAll)).
		killed(300, "a", "SIGSEGV", "Signaled").exit(900, "b", 0, "Completed").fire(901, "b").terminating(902)
}

// stubbornStop is the grace budget's scenario: a stop request, b exits 0 on its SIGTERM, a
// ignores it and is SIGKILLed at the budget end (3 s).
func stubbornStop() *hist {
	return twoMains().stop(500, false).terminating(501).signal(502, "a", "SIGTERM").signal(502, "b", "SIGTERM").
		exit(600, "b", 0, "Stopped").signal(3502, "a", "SIGKILL").killed(3510, "a", "SIGKILL", "Stopped")
}

// crashed is a pod whose a reports its start and then SIGSEGV after making itself dumpable or
// not, dies of it and fires exitPolicy Any; b is stopped by its SIGTERM.
func crashed(dumpable bool) *hist {
	return twoMains(policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAny)).work(120, "a", probe.TypeStart).
		work(290, "a", probe.TypeCrash, func(p *probe.Event) {
			p.Signal, p.Core = "SIGSEGV", &probe.CoreSetup{Dumpable: dumpable, Limit: ^uint64(0)}
		}).
		killed(300, "a", "SIGSEGV", "Signaled").fire(301, "a").terminating(302).
		signal(303, "b", "SIGTERM").killed(400, "b", "SIGTERM", "StoppedByPolicy").
		finish(500, v1alpha1.PodFailed, 139, "a", "Failed")
}

// sigkilled is a pod whose only container, with its workload's start reported (and, when ate,
// its eating), ignores its stop signal and is SIGKILLed at the budget end of a stop request,
// with reason reason.
func sigkilled(ate bool, reason string) *hist {
	h := pod(mains("a")).add(0, runtimev1.EventPodCreated, "").start(100, "a").work(120, "a", probe.TypeStart)
	if ate {
		h.work(200, "a", probe.TypeEat)
	}
	return h.stop(500, false).terminating(501).signal(502, "a", "SIGTERM").signal(3502, "a", "SIGKILL").
		killed(3510, "a", "SIGKILL", reason).finish(3600, v1alpha1.PodSucceeded, 0, "", "Stopped")
}

// ownNever is the row own-never of the exit matrix (restartPolicy OnFailure, a's own Never,
// exitPolicy Any): a exits 3; when restarted, the runtime restarts it once, then a stop ends
// the pod.
func ownNever(restarted bool) *hist {
	h := twoMains(policy(v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAny), withC("a", ownPolicy(v1alpha1.RestartPolicyNever))).
		exit(300, "a", 3, "Error")
	if !restarted {
		return h.fire(301, "a").terminating(302).signal(303, "b", "SIGTERM").killed(400, "b", "SIGTERM", "StoppedByPolicy").
			finish(500, v1alpha1.PodFailed, 3, "a", "Failed")
	}
	return h.start(600, "a").stop(900, false).terminating(901).signal(902, "a", "SIGTERM").signal(902, "b", "SIGTERM").
		killed(950, "a", "SIGTERM", "Stopped").killed(950, "b", "SIGTERM", "Stopped").
		finish(1000, v1alpha1.PodFailed, 3, "a", "Stopped")
}

// alwaysInit is a pod under restartPolicy Always whose regular init container i exits 1; when
// restarted (as OnFailure) it then exits 0 and a, with its own Never, runs and exits 0; else the
// runtime ends the pod at i's exit.
func alwaysInit(restarted bool) *hist {
	h := pod(inits("i"), mains("a"), policy(v1alpha1.RestartPolicyAlways, v1alpha1.ExitPolicyAll), withC("a", ownPolicy(v1alpha1.RestartPolicyNever))).
		add(0, runtimev1.EventPodCreated, "").start(100, "i").exit(200, "i", 1, "Error")
	if !restarted {
		return h.terminating(201).finish(300, v1alpha1.PodFailed, 1, "i", "Failed")
	}
	return h.start(500, "i").exit(600, "i", 0, "Completed").start(700, "a").exit(900, "a", 0, "Completed").
		fire(901, "a").terminating(902).finish(1000, v1alpha1.PodSucceeded, 0, "a", "Completed")
}

// unsetPolicy is a pod whose manifest leaves restartPolicy unset: a exits 0 at 300 ms and, when
// restarted (Always), runs again from 600 ms; b runs until a stop at 5 s.
func unsetPolicy(restarted bool) *hist {
	h := twoMains(func(p *v1alpha1.Pod) { p.Spec.RestartPolicy = "" }).exit(300, "a", 0, "Completed")
	if restarted {
		h.start(600, "a")
	}
	h.stop(5000, false).terminating(5001)
	if restarted {
		h.signal(5002, "a", "SIGTERM").killed(5050, "a", "SIGTERM", "Stopped")
	}
	return h.signal(5002, "b", "SIGTERM").killed(5050, "b", "SIGTERM", "Stopped").
		finish(5100, v1alpha1.PodSucceeded, 0, "", "Stopped")
}

// restartWithSignal is a pod whose a fails and restarts under OnFailure; when signalOther, the
// runtime sends b its stop signal during a's back-off and b exits 0 on it.
func restartWithSignal(signalOther bool) *hist {
	h := twoMains(policy(v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAll)).exit(300, "a", 1, "Error")
	if signalOther {
		h.signal(310, "b", "SIGTERM")
	}
	return h.exit(350, "b", 0, "Completed").start(600, "a").exit(900, "a", 0, "Completed").
		fire(901, "a").terminating(902).finish(1000, v1alpha1.PodSucceeded, 0, "a", "Completed")
}

// resetRun is a pod whose a runs 1.1 s twice, longer than resetAfterSeconds (0.5 s), failing each
// time; its back-off is 1 s growing by 4, so each restart is the first: the first restart comes
// at firstAt, the second one 3.3 s after the second instance started, at secondAt.
func resetRun(firstAt, secondAt int) *hist {
	return pod(mains("a"), policy(v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAll), backoffOf(1, 4, 30, 0.5)).
		add(0, runtimev1.EventPodCreated, "").start(100, "a").exit(1200, "a", 1, "Error").
		start(firstAt, "a").exit(firstAt+1100, "a", 1, "Error").start(secondAt, "a").exit(secondAt+1100, "a", 0, "Completed").
		fire(secondAt+1101, "a").terminating(secondAt+1102).finish(secondAt+1200, v1alpha1.PodSucceeded, 0, "a", "Completed")
}

func exitCases() []modelCase {
	allNever := policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAll)
	return []modelCase{
		{"a pod whose events and status carry one UUID across a restart conforms", restartedA(podUID), nil},
		{"a restarted instance's events with another UID break ID-005", restartedA("5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"), []string{spec.ID005, spec.ID005}},
		{"a UID without the dashes of the text form breaks ID-004", stoppedB(twoMains(policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAny))).
			withUID(strings.ReplaceAll(podUID, "-", "")), []string{spec.ID004}},
		{"PolicyFired naming the first exit in list order, not the last in event order, breaks EXIT-008", twoMains(allNever).
			exit(1000, "b", 0, "Completed").exit(2000, "a", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed"),
			// decidedBy follows the wrong container.
			[]string{spec.EXIT008, spec.EXIT016, spec.EXIT016}},
		{"Initialized True once the init container exited and the sidecar after it started conforms", initThenSidecar(450), nil},
		{"Initialized True before the sidecar after the init container started breaks EXIT-010", initThenSidecar(310), []string{spec.EXIT010}},
		{"finishedAt at the stop's beginning, before the stopped container ended, breaks EXIT-011",
			stoppedB(twoMains(policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAny))).finishedAt(1002), []string{spec.EXIT011}},
		{"a death by SIGSEGV counted a failure conforms", segvThenZero().finish(1000, v1alpha1.PodFailed, 139, "a", "Failed"), nil},
		{"a death by SIGSEGV not counted a failure breaks EXIT-012", segvThenZero().finish(1000, v1alpha1.PodSucceeded, 0, "b", "Completed"),
			// The termination reason and the result follow the miscount.
			[]string{spec.EXIT006, spec.EXIT006, spec.EXIT012, spec.EXIT014, spec.EXIT014}},
		{"a container SIGKILLed at the budget end not counted a failure conforms", stubbornStop().finish(3600, v1alpha1.PodSucceeded, 0, "", "Stopped"), nil},
		{"a container SIGKILLed at the budget end counted a failure breaks EXIT-013", stubbornStop().finish(3600, v1alpha1.PodFailed, 137, "a", "Stopped"),
			[]string{spec.EXIT013, spec.EXIT014, spec.EXIT014}},
		{"coreDumped for a dumpable process's SIGSEGV conforms", crashed(true).terminated("a", func(t *v1alpha1.ContainerStateTerminated) { t.CoreDumped = true }), nil},
		{"coreDumped for a non-dumpable process's SIGSEGV breaks STAT-005", crashed(false).terminated("a", func(t *v1alpha1.ContainerStateTerminated) { t.CoreDumped = true }),
			[]string{spec.STAT005}},
		{"coreDumped for a death by SIGTERM breaks STAT-005", crashed(true).terminated("b", func(t *v1alpha1.ContainerStateTerminated) { t.CoreDumped = true }),
			[]string{spec.STAT005}},
		{"oomKilled for a workload that ate memory conforms", sigkilled(true, "OOMKilled").terminated("a", func(t *v1alpha1.ContainerStateTerminated) { t.OOMKilled = true }), nil},
		{"oomKilled for the runtime's SIGKILL of a workload that ate nothing breaks STAT-004",
			sigkilled(false, "OOMKilled").terminated("a", func(t *v1alpha1.ContainerStateTerminated) { t.OOMKilled = true }), []string{spec.STAT004}},
		{"a container's own Never over the pod's OnFailure conforms", ownNever(false), nil},
		{"a container restarted by the pod's OnFailure over its own Never breaks RST-002", ownNever(true),
			// Any does not fire at the end the runtime took for a restart.
			[]string{spec.EXIT004, spec.RST002, spec.RST003}},
		{"a regular init container restarted after a failure under Always conforms", alwaysInit(true), nil},
		{"a regular init container under Always not restarted after a failure breaks INIT-002", alwaysInit(false), []string{spec.INIT002}},
		{"a container restarted after exiting 0 when restartPolicy is unset conforms", unsetPolicy(true), nil},
		{"a container not restarted after exiting 0 when restartPolicy is unset breaks MAN-011", unsetPolicy(false), []string{spec.MAN011, spec.RST003}},
		{"a restart that leaves the other containers alone conforms", restartWithSignal(false), nil},
		{"a restart that signals another container breaks RST-007", restartWithSignal(true), []string{spec.RST007}},
		{"a restart after a run past resetAfterSeconds within the first back-off conforms", resetRun(2300, 4500), nil},
		// The first restart waits the first back-off with or without a reset: its lateness is not
		// RST-009's to judge (as on a loaded machine, where creating the instance took 2.7 s).
		{"a late first restart after a run past resetAfterSeconds is not RST-009's", resetRun(4400, 6600), nil},
		{"a restart after a run past resetAfterSeconds that waits the grown back-off breaks RST-009", resetRun(2300, 7500), []string{spec.RST009}},
	}
}
