package model

import (
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// at is a moment ms milliseconds after t0.
func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func atp(ms int) *time.Time { t := at(ms); return &t }

// ntfPod is a pod p whose main container a declares the exec notifier x (timeout 1 s) and the
// signal notifier hup, b declares nothing and c declares x; all run from 0.1 s, a until 5 s.
// The Notifications and the deliveries in between are written by body; the pod then ends.
func ntfPod(body func(h *hist) *hist, extra ...podOpt) *hist {
	declare := func(c *v1alpha1.Container) {
		one := int32(1)
		c.Notifiers = append(c.Notifiers,
			v1alpha1.Notifier{Name: "x", TimeoutSeconds: &one, Action: v1alpha1.NotifierAction{Exec: &v1alpha1.ExecAction{Command: []string{"x"}}}})
	}
	opts := append([]podOpt{mains("a", "b", "c"), func(p *v1alpha1.Pod) { p.Metadata.Name = "p" }, withC("a", declare), withC("c", declare),
		withC("a", func(c *v1alpha1.Container) {
			c.Notifiers = append(c.Notifiers, v1alpha1.Notifier{Name: "hup", Action: v1alpha1.NotifierAction{Signal: "SIGHUP"}})
		})}, extra...)
	h := pod(opts...).add(0, runtimev1.EventPodCreated, "").
		start(100, "a", id("a1")).start(100, "b", id("b1")).start(100, "c", id("c1")).
		work(100, "a", probe.TypeStart).work(100, "b", probe.TypeStart).work(100, "c", probe.TypeStart)
	h = body(h)
	return h.exit(5000, "a", 0, "Completed").exit(5000, "b", 0, "Completed").exit(5000, "c", 0, "Completed").fire(5001, "c").terminating(5002).
		finish(5100, v1alpha1.PodSucceeded, 0, "c", "Completed")
}

// deliver records one delivery of Notification n (notifier nf) to container c: its
// NotifierStarted at ms, its NotifierFinished at ms+dur.
func (h *hist) deliver(ms, dur int, c, nf, n string) *hist {
	return h.notify(ms, c, nf, n, runtimev1.EventNotifierStarted).notify(ms+dur, c, nf, n, runtimev1.EventNotifierFinished)
}

// handler records the reports of notifier nf's handler in c: its start at ms and, with code >= 0,
// its end with that code at end.
func (h *hist) handler(c, nf string, ms, end, code int) *hist {
	h.probe = append(h.probe, probe.Event{Container: c, Role: probe.RoleNotifier, Handler: nf, Type: probe.TypeHandlerStart, Received: at(ms)})
	if code >= 0 {
		h.report(end, c, probe.RoleNotifier, nf, probe.TypeHandlerEnd, code)
	}
	return h
}

// notification adds a Notification of notifier nf to pod p issued at issued, read once per view.
func (h *hist) notification(name, nf string, issued int, views ...NotificationView) *hist {
	h.notes = append(h.notes, Notification{Name: name, Spec: v1alpha1.NotificationSpec{Notifier: nf, Pods: []string{"p"}}, Issued: at(issued), Views: views})
	return h
}

// view is a read at ms of a Notification with the pod's one record: the status phase given, its
// counts those of the record.
func view(ms int, phase v1alpha1.NotificationPhase, rec v1alpha1.PodNotificationRecord) NotificationView {
	rec.Pod = "p"
	v := NotificationView{Read: at(ms), Records: []v1alpha1.PodNotificationRecord{rec}}
	t := countsOf(v.Records)
	v.Status = v1alpha1.NotificationStatus{Phase: phase, Targets: t[0], Pending: t[1], Running: t[2], Succeeded: t[3], Failed: t[4], Skipped: t[5]}
	return v
}

func rec(phase v1alpha1.NotificationPhase, reason string, ds ...v1alpha1.ContainerDelivery) v1alpha1.PodNotificationRecord {
	return v1alpha1.PodNotificationRecord{Phase: phase, Reason: reason, Containers: ds}
}

func dlv(c string, phase v1alpha1.NotificationPhase, reason string) v1alpha1.ContainerDelivery {
	return v1alpha1.ContainerDelivery{Name: c, Phase: phase, Reason: reason}
}

func withExit(d v1alpha1.ContainerDelivery, code int32) v1alpha1.ContainerDelivery {
	d.ExitCode = &code
	return d
}

func timed(d v1alpha1.ContainerDelivery, from, to int) v1alpha1.ContainerDelivery {
	d.StartedAt, d.FinishedAt = atp(from), atp(to)
	return d
}

var (
	ok      = v1alpha1.NotificationSucceeded
	failed  = v1alpha1.NotificationFailed
	skipped = v1alpha1.NotificationSkipped
)

// xDone is a history in which Notification n of x ran in a (handler exit code) and c, with a's
// delivery recorded as d; the record is read final at 2 s.
func xDone(code int, d v1alpha1.ContainerDelivery) *hist {
	return ntfPod(func(h *hist) *hist {
		return h.deliver(1000, 300, "a", "x", "n").deliver(1000, 300, "c", "x", "n").handler("a", "x", 1010, 1200, code).
			notification("n", "x", 900, view(2000, d.Phase, rec(d.Phase, "", d, dlv("c", ok, ""))))
	})
}

func notificationCases() []modelCase {
	return []modelCase{
		{"a delivery recorded from its command's exit 0 conforms", xDone(0, dlv("a", ok, "")), nil},
		{"a delivery recorded Failed HandlerFailed with the command's exit code conforms", xDone(7, withExit(dlv("a", failed, v1alpha1.ReasonHandlerFailed), 7)), nil},
		{"a failed command's delivery without its exitCode breaks NTF-007", xDone(7, dlv("a", failed, v1alpha1.ReasonHandlerFailed)), []string{spec.NTF007}},
		{"a failed command's delivery recorded Succeeded breaks NTF-007", xDone(7, dlv("a", ok, "")), []string{spec.NTF007}},
		{"a timeout recorded after timeoutSeconds with the tree killed conforms", xDone(-1, timed(dlv("a", failed, v1alpha1.ReasonHandlerTimeout), 1000, 2010)), nil},
		{"a timeout recorded before timeoutSeconds breaks NTF-008", xDone(-1, timed(dlv("a", failed, v1alpha1.ReasonHandlerTimeout), 1000, 1500)), []string{spec.NTF008}},
		{"a descendant of a timed-out action that reports its end later breaks NTF-008", func() *hist {
			h := xDone(-1, timed(dlv("a", failed, v1alpha1.ReasonHandlerTimeout), 1000, 2010))
			return h.report(4000, "a", probe.RoleNotifier, "x.1", probe.TypeHandlerEnd, 0)
		}(), []string{spec.NTF008}},
		{"a delivery read Running with its instance while its action runs conforms", runningRead(v1alpha1.NotificationRunning, "a1"), nil},
		{"a delivery read Pending while its action runs breaks NTF-011", runningRead(v1alpha1.NotificationPending, ""), []string{spec.NTF011}},
		{"a delivery read Running with another instance's containerID breaks NTF-011", runningRead(v1alpha1.NotificationRunning, "b1"), []string{spec.NTF011}},
		{"deliveries in two pods one after the other with parallelism 1 conform", parallel(1300, 1400), nil},
		{"deliveries in two pods at once with parallelism 1 break NOTIF-006", parallel(1500, 1200), []string{spec.NOTIF006}},
		{"a delivery that ran to its end across its Notification's removal conforms", removedWhileRunning(1200, 1000), nil},
		{"a delivery cut short by its Notification's removal breaks NOTIF-019", removedWhileRunning(-1, 1000), []string{spec.NOTIF019}},
		{"a delivery started after its Notification's removal returned breaks NOTIF-020", removedWhileRunning(1600, 1200), []string{spec.NOTIF020}},
		{"a selector's target recorded PodNotFound breaks NOTIF-009", ntfPod(func(h *hist) *hist {
			v := view(2000, skipped, rec(skipped, v1alpha1.ReasonNoMatchingContainers))
			gone := rec(skipped, v1alpha1.ReasonPodNotFound)
			gone.Pod = "q"
			v.Records = append(v.Records, gone)
			v.Status.Targets, v.Status.Skipped = 2, 2
			h.notification("n", "none", 900, v)
			h.notes[0].Spec.Pods, h.notes[0].Spec.Selector = nil, &v1alpha1.LabelSelector{MatchLabels: map[string]string{"k": "v"}}
			return h
		}), []string{spec.NOTIF009}},
		{"a final pod record Succeeded with a Failed delivery breaks NOTIF-013", ntfPod(func(h *hist) *hist {
			return h.deliver(1000, 300, "a", "x", "n").deliver(1000, 300, "c", "x", "n").
				notification("n", "x", 900, view(2000, ok, rec(ok, "", dlv("a", failed, v1alpha1.ReasonHandlerFailed), dlv("c", ok, ""))))
		}), []string{spec.NOTIF013}},
		{"a PreExistingPods Notification Succeeded over a Skipped record breaks NOTIF-014", ntfPod(func(h *hist) *hist {
			return h.notification("n", "none", 900, view(2000, ok, rec(skipped, v1alpha1.ReasonNoMatchingContainers)))
		}), []string{spec.NOTIF014}},
		{"an AllPods Notification with a final phase breaks NOTIF-015", ntfPod(func(h *hist) *hist {
			h.notification("n", "none", 900, view(2000, skipped, rec(skipped, v1alpha1.ReasonNoMatchingContainers)))
			h.notes[0].Spec.TargetPolicy = v1alpha1.AllPods
			return h
		}), []string{spec.NOTIF015}},
		{"counts that disagree with records unchanged for the reaction tolerance break NOTIF-016", wrongCounts(3100), []string{spec.NOTIF016}},
		{"counts that disagree only within the reaction tolerance conform", wrongCounts(3000), nil},
		{"21 failures in the status break NOTIF-017", ntfPod(func(h *hist) *hist {
			v := view(2000, skipped, rec(skipped, v1alpha1.ReasonNoMatchingContainers))
			v.Status.Failures = make([]v1alpha1.NotificationFailure, 21)
			return h.notification("n", "none", 900, v)
		}), []string{spec.NOTIF017}},
		{"a pod where nothing declares the notifier skipped NotEligible breaks NOTIF-010", ntfPod(func(h *hist) *hist {
			return h.notification("n", "none", 900, view(2000, skipped, rec(skipped, v1alpha1.ReasonNotEligible)))
		}), []string{spec.NOTIF010}},
		{"a declaring container left out of the record breaks NTF-014", ntfPod(func(h *hist) *hist {
			return h.deliver(1000, 300, "a", "x", "n").handler("a", "x", 1010, 1200, 0).
				notification("n", "x", 900, view(2000, ok, rec(ok, "", dlv("a", ok, ""))))
		}), []string{spec.NTF014}},
		{"a declaring container skipped without running for another reason breaks NOTIF-011", ntfPod(func(h *hist) *hist {
			return h.deliver(1000, 300, "a", "x", "n").handler("a", "x", 1010, 1200, 0).
				notification("n", "x", 900, view(2000, ok, rec(ok, "", dlv("a", ok, ""), dlv("c", skipped, v1alpha1.ReasonHandlerFailed))))
		}), []string{spec.NOTIF011}},
		{"a Notification created while the pod terminates, skipped PodTerminating, conforms", terminatingNotified(false, rec(skipped, v1alpha1.ReasonPodTerminating)), nil},
		{"a delivery of a Notification created while the pod terminates breaks NOTIF-008", terminatingNotified(true, rec(ok, "", dlv("a", ok, ""), dlv("c", skipped, v1alpha1.ReasonNotEligible))),
			[]string{spec.NOTIF008, spec.NOTIF008, spec.MAIN005}},
		{"a Notification created once the pod is terminal, not skipped PodTerminated, breaks NOTIF-009", func() *hist {
			h := ntfPod(func(h *hist) *hist { return h })
			return h.notification("n", "x", 6000, view(6500, skipped, rec(skipped, v1alpha1.ReasonPodTerminating)))
		}(), []string{spec.NOTIF009}},
		{"a signal delivery recorded Succeeded that the workload received conforms", ntfPod(func(h *hist) *hist {
			return h.deliver(1000, 10, "a", "hup", "s").work(1020, "a", probe.TypeSignal, func(p *probe.Event) { p.Signal = "SIGHUP" }).
				notification("s", "hup", 900, view(2000, ok, rec(ok, "", dlv("a", ok, ""))))
		}), nil},
		{"a signal delivery recorded Succeeded that never reached the workload breaks NTF-006", ntfPod(func(h *hist) *hist {
			return h.deliver(1000, 10, "a", "hup", "s").notification("s", "hup", 900, view(2000, ok, rec(ok, "", dlv("a", ok, ""))))
		}), []string{spec.NTF006}},
		{"a delivery whose instance restarts under it, Failed ContainerRestarted, conforms", restartedUnder(dlv("a", failed, v1alpha1.ReasonContainerRestarted)), nil},
		{"a delivery whose instance restarts under it, Failed PodTerminated, breaks NTF-013", restartedUnder(dlv("a", failed, v1alpha1.ReasonPodTerminated)), []string{spec.NTF013}},
		{"a delivery to a container whose startup probe never passed breaks NTF-009", ntfPod(func(h *hist) *hist {
			for _, ms := range []int{200, 400, 600} {
				h.probe = append(h.probe, probe.Event{Container: "a", Role: probe.RoleCheck, Handler: "startup", Type: probe.TypeCheck, Result: "failure", Received: at(ms)})
			}
			return h.deliver(1000, 300, "a", "hup", "s")
		}, withC("a", func(c *v1alpha1.Container) {
			c.StartupProbe = &v1alpha1.Probe{Exec: &v1alpha1.ExecAction{Command: []string{"x"}}, FailureThreshold: 1000}
		})), []string{spec.NTF009}},
	}
}

// terminatingNotified is a pod stopped at 1 s, its a ignoring SIGTERM until 3 s, notified of x
// at 1.5 s; the delivery to a runs at 2 s if delivered; the record is read at 2.5 s.
func terminatingNotified(delivered bool, r v1alpha1.PodNotificationRecord) *hist {
	h := pod(mains("a"), func(p *v1alpha1.Pod) { p.Metadata.Name = "p" }, withC("a", func(c *v1alpha1.Container) {
		c.Notifiers = []v1alpha1.Notifier{{Name: "x", Action: v1alpha1.NotifierAction{Signal: "SIGHUP"}}}
	})).add(0, runtimev1.EventPodCreated, "").start(100, "a", id("a1")).
		stop(1000, false).terminating(1001).signal(1002, "a", "SIGTERM")
	if delivered {
		h.deliver(2000, 10, "a", "x", "n")
	}
	return h.notification("n", "x", 1500, view(2500, r.Phase, r)).
		killed(3000, "a", "SIGTERM", "Stopped").finish(3100, v1alpha1.PodSucceeded, 0, "", "Stopped")
}

// restartedUnder is a pod whose a (restart policy OnFailure) exits 1 at 1.1 s while the delivery of
// Notification n (x, its handler reporting no end) runs from 1 s; the record is d.
func restartedUnder(d v1alpha1.ContainerDelivery) *hist {
	onFailure := v1alpha1.RestartPolicyOnFailure
	return ntfPod(func(h *hist) *hist {
		h.notify(1000, "a", "x", "n", runtimev1.EventNotifierStarted).deliver(1000, 300, "c", "x", "n").handler("a", "x", 1010, 0, -1).
			exit(1100, "a", 1, "Error").notify(1110, "a", "x", "n", runtimev1.EventNotifierFinished).start(1500, "a", id("a2")).work(1500, "a", probe.TypeStart)
		return h.notification("n", "x", 900, view(2000, failed, rec(failed, "", d, dlv("c", ok, ""))))
	}, withC("a", func(c *v1alpha1.Container) { c.RestartPolicy = &onFailure }))
}

// runningRead is xDone with one more read of Notification n at 1.1 s, while a's action runs
// (its start reported at 1.01 s), showing a's delivery in phase with containerID cid.
func runningRead(phase v1alpha1.NotificationPhase, cid string) *hist {
	h := xDone(0, dlv("a", ok, ""))
	d := dlv("a", phase, "")
	d.ContainerID = cid
	v := view(1100, v1alpha1.NotificationRunning, rec(v1alpha1.NotificationRunning, "", d, dlv("c", v1alpha1.NotificationRunning, "")))
	h.notes[0].Views = append([]NotificationView{v}, h.notes[0].Views...)
	return h
}

// parallel is a pod whose a gets a delivery of Notification n (x, parallelism 1) from 1 s to
// to1, and another pod q one from from2 to 2 s, as n's last read records them.
func parallel(to1, from2 int) *hist {
	return ntfPod(func(h *hist) *hist {
		h.deliver(1000, to1-1000, "a", "x", "n").deliver(1000, to1-1000, "c", "x", "n").handler("a", "x", 1010, to1-10, 0)
		mine := rec(ok, "", timed(dlv("a", ok, ""), 1000, to1), timed(dlv("c", ok, ""), 1000, to1))
		other := rec(ok, "", timed(dlv("a", ok, ""), from2, 2000))
		other.Pod = "q"
		v := view(3000, ok, mine)
		v.Records = append(v.Records, other)
		t := countsOf(v.Records)
		v.Status.Targets, v.Status.Succeeded = t[0], t[3]
		one := int32(1)
		h.notification("n", "x", 900, v)
		h.notes[0].Spec.Parallelism, h.notes[0].Spec.Pods = &one, nil
		return h
	})
}

// wrongCounts is a pod whose Notification n is read at 2 s, 2.1 s and last ms, each read
// holding the same Skipped record under a status that counts no target.
func wrongCounts(last int) *hist {
	return ntfPod(func(h *hist) *hist {
		var vs []NotificationView
		for _, ms := range []int{2000, 2100, last} {
			v := view(ms, skipped, rec(skipped, v1alpha1.ReasonNoMatchingContainers))
			v.Status.Targets = 0
			vs = append(vs, v)
		}
		return h.notification("n", "none", 900, vs...)
	})
}

// removedWhileRunning is a pod whose a gets a delivery of Notification n (x, timeout 1 s) from
// start ms for 0.5 s, its handler reporting its start and, at end (if >= 0), its end; n's
// removal is issued at 1.1 s and returns at 1.15 s.
func removedWhileRunning(end, start int) *hist {
	h := ntfPod(func(h *hist) *hist {
		return h.deliver(start, 500, "a", "x", "n").handler("a", "x", start+10, end, map[bool]int{true: 0, false: -1}[end >= 0]).
			notification("n", "x", 700)
	})
	h.notes[0].Removing, h.notes[0].Removed = at(1100), at(1150)
	return h
}
