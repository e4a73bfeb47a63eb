package model

import (
	"slices"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// update records an `update` issued at ms that returned 10 ms later, submitting the pod's
// manifest as it was first written changed by mods.
func (h *hist) update(ms int, accepted bool, mods ...podOpt) *hist {
	p := defaulted(h.pod)
	for _, m := range mods {
		m(p)
	}
	at := t0.Add(time.Duration(ms) * time.Millisecond)
	h.upd = append(h.upd, Update{Issued: at, Returned: at.Add(10 * time.Millisecond), Pod: p, Accepted: accepted})
	return h
}

func (h *hist) applied(ms int, gen int64) *hist {
	return h.add(ms, runtimev1.EventUpdateApplied, "", func(e *runtimev1.Event) { e.Generation = gen })
}

func image(name, img string) podOpt {
	return withC(name, func(c *v1alpha1.Container) { c.Image = img })
}

// memory gives a container a memory limit whose change the resize policy pol handles.
func memory(name, limit string, pol v1alpha1.ResourceResizeRestartPolicy) podOpt {
	return withC(name, func(c *v1alpha1.Container) {
		c.Resources = &v1alpha1.ResourceRequirements{Limits: v1alpha1.ResourceList{v1alpha1.ResourceMemory: v1alpha1.Quantity(limit)}}
		c.ResizePolicy = []v1alpha1.ContainerResizePolicy{{ResourceName: v1alpha1.ResourceMemory, RestartPolicy: pol}}
	})
}

// updatedA is a pod whose a and b run from 0.1 s; an update of a's image is issued at 0.5 s and
// what follows until UpdateApplied is written by upd; both end at 1 s and 2 s.
func updatedA(upd func(*hist) *hist, p ...podOpt) *hist {
	h := upd(twoMains(p...).update(500, true, image("a", "img2")))
	return h.exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
		finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed")
}

// replacedA replaces a as UPD-007 says: its stop signal, its end (its workload exits 0 on it), a
// new instance.
func replacedA(h *hist) *hist {
	return h.signal(520, "a", "SIGTERM").exit(600, "a", 0, "Completed").start(610, "a")
}

// resized is a pod whose a (memory limit, resize policy pol) and b run; an update of a's limit
// is issued at 0.5 s, what follows is written by upd.
func resized(pol v1alpha1.ResourceResizeRestartPolicy, upd func(*hist) *hist) *hist {
	h := upd(twoMains(memory("a", "64Mi", pol)).update(500, true, memory("a", "128Mi", pol)))
	return h.exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
		finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed")
}

// waitingA is a pod whose a (restart policy OnFailure, env MARK=1) exits 1 at 0.3 s and is
// updated to MARK=2 at 0.5 s, while it waits to restart; its next instance reports MARK=mark.
func waitingA(mark string) *hist {
	env := func(v string) podOpt {
		return withC("a", func(c *v1alpha1.Container) { c.Env = []v1alpha1.EnvVar{{Name: "MARK", Value: v}} })
	}
	onFailure := withC("a", func(c *v1alpha1.Container) { r := v1alpha1.RestartPolicyOnFailure; c.RestartPolicy = &r })
	return twoMains(env("1"), onFailure).work(100, "a", probe.TypeStart).work(110, "b", probe.TypeStart).
		work(290, "a", probe.TypeExit, code(1)).exit(300, "a", 1, "Error").
		update(500, true, env("2")).applied(510, 2).start(1700, "a").work(1710, "a", probe.TypeStart).
		work(1720, "a", probe.TypeReport, func(p *probe.Event) { p.Report = &probe.Report{Env: map[string]string{"MARK": mark}} }).
		work(1990, "a", probe.TypeExit, code(0)).exit(2000, "a", 0, "Completed").
		work(1990, "b", probe.TypeExit, code(0)).exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
		finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed")
}

// deadlineUpdated is a pod started at 0 (deadline 600 s) whose deadline an update issued at 2 s
// sets to 5 s; its stop request with reason DeadlineExceeded comes at ms.
func deadlineUpdated(ms int) *hist {
	set := func(d int64) podOpt { return func(p *v1alpha1.Pod) { p.Spec.ActiveDeadlineSeconds = &d } }
	h := pod(mains("a"), set(600)).add(0, runtimev1.EventPodCreated, "").start(100, "a").update(2000, true, set(5)).applied(2020, 2).
		add(ms, runtimev1.EventStopRequested, "", func(e *runtimev1.Event) { e.Reason = termDeadline }).terminating(ms+1).
		signal(ms+2, "a", "SIGTERM").killed(ms+50, "a", "SIGTERM", "DeadlineExceeded").finish(ms+100, v1alpha1.PodFailed, 1, "", "DeadlineExceeded")
	h.final.StartedAt = &t0
	return h
}

// deadlineRaisedInFlight is deadlineUpdated(5100) with a second update, issued 5 ms before the
// deadline fires and returned after it, that raises the deadline to 60 s: either deadline can
// have been in force, so firing at the first one's moment conforms.
func deadlineRaisedInFlight() *hist {
	h := deadlineUpdated(5100)
	d := int64(60)
	p := defaulted(h.pod)
	p.Spec.ActiveDeadlineSeconds = &d
	at := t0.Add(5095 * time.Millisecond)
	h.upd = append(h.upd, Update{Issued: at, Returned: at.Add(10 * time.Millisecond), Pod: p, Accepted: true})
	return h
}

func updateCases() []modelCase {
	return []modelCase{
		{"an updated deadline that fires at its moment while a later update raising it is in flight conforms", deadlineRaisedInFlight(), nil},
		{"an updated deadline that fires at startedAt + its new value conforms", deadlineUpdated(5100), nil},
		{"an updated deadline counted from the update breaks UPD-014", deadlineUpdated(7000), []string{spec.UPD014}},
		{"an updated deadline that fires before its moment breaks UPD-014", deadlineUpdated(4000), []string{spec.UPD014}},
		{"a container waiting to restart when updated restarts with the new env", waitingA("2"), nil},
		{"a container waiting to restart when updated that restarts with the old env breaks UPD-012", waitingA("1"), []string{spec.UPD012}},
		{"an update that replaces a by its stop signal and reports it applied once the new instance runs conforms",
			updatedA(func(h *hist) *hist { return replacedA(h).applied(620, 2) }), nil},
		{"an update accepted once the pod was terminating breaks UPD-004",
			stoppedB(twoMains(policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAny)).update(1050, true, image("b", "img2"))),
			[]string{spec.UPD004}},
		{"an update refused once the pod was terminating conforms",
			stoppedB(twoMains(policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAny)).update(1050, false, image("b", "img2"))), nil},
		{"a generation an update that changed nothing made breaks UPD-005",
			updatedA(func(h *hist) *hist {
				return replacedA(h).applied(620, 2).update(700, true, image("a", "img2")).applied(720, 3)
			}), []string{spec.UPD005}},
		{"UpdateApplied while the replaced instance still ran breaks UPD-006",
			updatedA(func(h *hist) *hist { return replacedA(h.applied(505, 2)) }), []string{spec.UPD006}},
		{"UpdateApplied after the replaced instance's end but before the new one started breaks UPD-006",
			updatedA(func(h *hist) *hist {
				return h.signal(520, "a", "SIGTERM").exit(600, "a", 0, "Completed").applied(605, 2).start(610, "a")
			}), []string{spec.UPD006}},
		{"an update that replaces a by SIGKILL first breaks UPD-007",
			updatedA(func(h *hist) *hist {
				return h.signal(520, "a", "SIGKILL").exit(530, "a", 0, "Completed").start(540, "a").applied(550, 2)
			}), []string{spec.UPD007}},
		{"an update that sends SIGKILL within the grace period breaks UPD-007",
			updatedA(func(h *hist) *hist {
				return h.signal(520, "a", "SIGTERM").signal(900, "a", "SIGKILL").exit(910, "a", 0, "Completed").start(920, "a").applied(930, 2)
			}), []string{spec.UPD007}},
		{"an update applied without ever signalling the instance it restarts breaks UPD-007",
			updatedA(func(h *hist) *hist { return h.applied(520, 2) }), []string{spec.UPD007}},
		{"an update that also replaces the unchanged b breaks UPD-009",
			updatedA(func(h *hist) *hist {
				return replacedA(h).signal(521, "b", "SIGTERM").exit(601, "b", 0, "Completed").start(612, "b").applied(620, 2)
			}), []string{spec.UPD009}},
		{"a pod decided by the end of an instance an update replaced breaks UPD-008",
			twoMains().update(500, true, image("a", "img2")).signal(520, "a", "SIGTERM").exit(600, "a", 3, "Error").start(610, "a").applied(620, 2).
				exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
				finish(2100, v1alpha1.PodFailed, 3, "a", "Failed"), []string{spec.UPD008, spec.UPD008}},
		{"a resize applied in place conforms",
			resized(v1alpha1.NotRequired, func(h *hist) *hist { return h.applied(520, 2) }), nil},
		{"a resize that restarts the container breaks UPD-010",
			resized(v1alpha1.NotRequired, func(h *hist) *hist { return replacedA(h).applied(620, 2) }), []string{spec.UPD010}},
		{"a RestartContainer resize that restarts the container conforms",
			resized(v1alpha1.RestartContainer, func(h *hist) *hist { return replacedA(h).applied(620, 2) }), nil},
		{"a RestartContainer resize applied in place breaks UPD-011",
			resized(v1alpha1.RestartContainer, func(h *hist) *hist { return h.applied(520, 2) }), []string{spec.UPD011}},
		{"a RestartContainer resize applied in place breaks UPD-011, the pod's later stop signal notwithstanding",
			twoMains(memory("a", "64Mi", v1alpha1.RestartContainer)).update(500, true, memory("a", "128Mi", v1alpha1.RestartContainer)).applied(520, 2).
				stop(1000, false).terminating(1001).signal(1002, "a", "SIGTERM").signal(1003, "b", "SIGTERM").
				exit(1100, "a", 0, "Stopped").exit(1100, "b", 0, "Stopped").finish(1200, v1alpha1.PodSucceeded, 0, "", "Stopped"),
			[]string{spec.UPD011}},
		{"an update that starts again a main container that had ended terminally breaks UPD-013",
			twoMains().exit(300, "a", 0, "Completed").update(500, true, image("a", "img2")).start(600, "a").applied(610, 2).
				exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
				finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed"), []string{spec.UPD013}},
		{"an update of a main container that had ended terminally, applied without starting it, conforms",
			twoMains().exit(300, "a", 0, "Completed").update(500, true, image("a", "img2")).applied(510, 2).
				exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
				finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed"), nil},
	}
}

// The rules of updates and of a supervisor's loss label a scenario only when its schedule may
// update the pod or crash its supervisor: a model-only run of their mutants runs only those.
func TestUpdateAndLossRulesLabelOnlyTheirSchedules(t *testing.T) {
	p := &v1alpha1.Pod{Spec: v1alpha1.PodSpec{Containers: []v1alpha1.Container{{Name: "a"}}}}
	for _, tc := range []struct {
		s            Schedule
		upd, crashes bool
	}{{Schedule{}, false, false}, {Schedule{Updates: true}, true, false}, {Schedule{Crashes: true}, false, true}} {
		got := Rules(p, tc.s)
		if slices.Contains(got, spec.UPD004) != tc.upd || slices.Contains(got, spec.SUP004) != tc.crashes {
			t.Errorf("Rules under %+v: %v", tc.s, got)
		}
		if !slices.Contains(got, spec.EXIT014) {
			t.Errorf("Rules under %+v lost the other rules: %v", tc.s, got)
		}
	}
}
