package model

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// t0 is the moment every hand-written history starts at.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// podUID is the UID of every hand-written history's pod.
const podUID = "0b6e3c2a-5f1d-4c8e-9a7b-2d4f6e8a0c1e"

// hist writes a history event by event, each at a time in milliseconds after t0.
type hist struct {
	pod   *v1alpha1.Pod
	ev    []runtimev1.Event
	probe []probe.Event
	final *v1alpha1.PodStatus
	notes []Notification
	upd   []Update
	crash []Crash
	lives []PodLife
	// images is what the harness read of the manifest's images (History.Images).
	images map[string]Image
}

type podOpt func(*v1alpha1.Pod)

func pod(opts ...podOpt) *hist {
	p := &v1alpha1.Pod{Spec: v1alpha1.PodSpec{RestartPolicy: v1alpha1.RestartPolicyNever}}
	p.Spec.RestartBackoff = &v1alpha1.Backoff{InitialSeconds: f64(0.2), Factor: f64(1), MaxSeconds: f64(0.2), ResetAfterSeconds: f64(600)}
	grace := int64(3)
	p.Spec.TerminationGracePeriodSeconds = &grace
	for _, o := range opts {
		o(p)
	}
	return &hist{pod: p}
}

func f64(v float64) *float64 { return &v }
func i32(v int32) *int32     { return &v }

func mains(names ...string) podOpt {
	return func(p *v1alpha1.Pod) {
		for _, n := range names {
			p.Spec.Containers = append(p.Spec.Containers, v1alpha1.Container{Name: n})
		}
	}
}

func inits(names ...string) podOpt {
	return func(p *v1alpha1.Pod) {
		for _, n := range names {
			p.Spec.InitContainers = append(p.Spec.InitContainers, v1alpha1.Container{Name: n})
		}
	}
}

func sidecars(names ...string) podOpt {
	return func(p *v1alpha1.Pod) {
		for _, n := range names {
			always := v1alpha1.RestartPolicyAlways
			p.Spec.InitContainers = append(p.Spec.InitContainers, v1alpha1.Container{Name: n, RestartPolicy: &always})
		}
	}
}

func defers(phase v1alpha1.DeferPhase, names ...string) podOpt {
	return func(p *v1alpha1.Pod) {
		for _, n := range names {
			p.Spec.DeferContainers = append(p.Spec.DeferContainers, v1alpha1.DeferContainer{Name: n, Phase: phase})
		}
	}
}

func policy(r v1alpha1.RestartPolicy, e v1alpha1.ExitPolicy) podOpt {
	return func(p *v1alpha1.Pod) { p.Spec.RestartPolicy, p.Spec.ExitPolicy = r, e }
}

func withC(name string, f func(*v1alpha1.Container)) podOpt {
	return func(p *v1alpha1.Pod) {
		for _, list := range [][]v1alpha1.Container{p.Spec.InitContainers, p.Spec.Containers} {
			for i := range list {
				if list[i].Name == name {
					f(&list[i])
				}
			}
		}
	}
}

func preStop(c *v1alpha1.Container) {
	c.Lifecycle = &v1alpha1.Lifecycle{PreStop: &v1alpha1.LifecycleHandler{Exec: &v1alpha1.ExecAction{Command: []string{"x"}}}}
}

func postStart(c *v1alpha1.Container) {
	c.Lifecycle = &v1alpha1.Lifecycle{PostStart: &v1alpha1.LifecycleHandler{Exec: &v1alpha1.ExecAction{Command: []string{"x"}}}}
}

func dependsOnCompleted(dep string) func(*v1alpha1.Container) {
	return func(c *v1alpha1.Container) {
		c.DependsOn = append(c.DependsOn, v1alpha1.Dependency{Name: dep, Condition: v1alpha1.ConditionCompleted})
	}
}

func (h *hist) kindOf(name string) string {
	rp := newReplay(History{Pod: h.pod}, Options{})
	if c := rp.byName[name]; c != nil {
		return c.kind
	}
	return ""
}

// add appends an event of type typ at ms, about container c ("" for the pod).
func (h *hist) add(ms int, typ runtimev1.EventType, c string, mod ...func(*runtimev1.Event)) *hist {
	e := runtimev1.Event{Seq: int64(len(h.ev) + 1), Time: t0.Add(time.Duration(ms) * time.Millisecond), Type: typ, Container: c}
	if c != "" {
		e.ContainerKind = h.kindOf(c)
	}
	for _, m := range mod {
		m(&e)
	}
	h.ev = append(h.ev, e)
	return h
}

func (h *hist) starts(c string) int {
	n := 0
	for _, e := range h.ev {
		if e.Type == runtimev1.EventContainerStarted && e.Container == c {
			n++
		}
	}
	return n
}

func (h *hist) start(ms int, c string, mod ...func(*runtimev1.Event)) *hist {
	n := int32(h.starts(c))
	return h.add(ms, runtimev1.EventContainerStarted, c, append(mod, func(e *runtimev1.Event) { e.RestartCount = &n })...)
}

func (h *hist) exit(ms int, c string, code int32, reason string, mod ...func(*runtimev1.Event)) *hist {
	return h.add(ms, runtimev1.EventContainerExited, c, append(mod, func(e *runtimev1.Event) { e.ExitCode, e.Reason = &code, reason })...)
}

func (h *hist) killed(ms int, c string, sig, reason string, mod ...func(*runtimev1.Event)) *hist {
	return h.add(ms, runtimev1.EventContainerExited, c, append(mod, func(e *runtimev1.Event) { e.Signal, e.Reason = signal(sig), reason })...)
}

func (h *hist) signal(ms int, c, sig string, mod ...func(*runtimev1.Event)) *hist {
	return h.add(ms, runtimev1.EventSignalSent, c, append(mod, func(e *runtimev1.Event) { e.Signal = signal(sig) })...)
}

// id sets an event's containerID.
func id(cid string) func(*runtimev1.Event) { return func(e *runtimev1.Event) { e.ContainerID = cid } }

func (h *hist) hook(ms int, c string, typ runtimev1.EventType, which string) *hist {
	return h.add(ms, typ, c, func(e *runtimev1.Event) { e.Hook, e.Result = which, runtimev1.ResultSucceeded })
}

func (h *hist) stop(ms int, force bool) *hist {
	return h.add(ms, runtimev1.EventStopRequested, "", func(e *runtimev1.Event) { e.Force = force })
}

func (h *hist) fire(ms int, c string) *hist {
	return h.add(ms, runtimev1.EventPolicyFired, c, func(e *runtimev1.Event) {
		e.Reason = string(h.pod.Spec.ExitPolicy)
		if e.Reason == "" {
			e.Reason = string(v1alpha1.ExitPolicyAll)
		}
	})
}

func (h *hist) terminating(ms int) *hist { return h.add(ms, runtimev1.EventPodTerminating, "") }

// finish records PodFinished and the matching final status (with DeferCompleted True when the
// pod has defers: cases about a defer's failure or skip set the condition themselves).
func (h *hist) finish(ms int, phase v1alpha1.PodPhase, code int32, decidedBy, reason string) *hist {
	h.add(ms, runtimev1.EventPodFinished, "", func(e *runtimev1.Event) {
		e.Phase, e.ExitCode, e.DecidedBy, e.Reason = phase, &code, decidedBy, reason
	})
	at := t0.Add(time.Duration(ms) * time.Millisecond)
	h.final = &v1alpha1.PodStatus{UID: podUID, Phase: phase, ExitCode: &code, DecidedBy: decidedBy, Reason: reason, FinishedAt: &at}
	if len(h.pod.Spec.DeferContainers) > 0 {
		h.final.Conditions = []v1alpha1.PodCondition{{Type: v1alpha1.PodDeferCompleted, Status: v1alpha1.ConditionTrue}}
	}
	return h
}

// work records a workload's own report at ms.
func (h *hist) work(ms int, c, typ string, mod ...func(*probe.Event)) *hist {
	p := probe.Event{Container: c, Role: probe.RoleWorkload, Type: typ, Received: t0.Add(time.Duration(ms) * time.Millisecond)}
	for _, m := range mod {
		m(&p)
	}
	h.probe = append(h.probe, p)
	return h
}

func signal(name string) *v1alpha1.Signal {
	n, _ := v1alpha1.SignalNumber(name)
	return &v1alpha1.Signal{Name: name, Number: n}
}

func (h *hist) history() History {
	return History{Pod: h.pod, Events: h.ev, Probe: h.probe, Final: h.final, Notifications: h.notes, Updates: h.upd, Crashes: h.crash, Pods: h.lives, Images: h.images}
}

var opts = Options{Reaction: time.Second, EarlyMargin: 50 * time.Millisecond}

// twoMains is the base of many cases: a and b run, a exits 0 at 1 s.
func twoMains(p ...podOpt) *hist {
	return pod(append([]podOpt{mains("a", "b")}, p...)...).add(0, runtimev1.EventPodCreated, "").
		start(100, "a").start(110, "b")
}

// stoppedB ends a pod whose b is stopped by the policy after a's exit 0 at 1 s (exit policy Any).
func stoppedB(h *hist) *hist {
	return h.exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
		signal(1003, "b", "SIGTERM").killed(1100, "b", "SIGTERM", "StoppedByPolicy").
		finish(1200, v1alpha1.PodSucceeded, 0, "a", "Completed")
}

// unrecordedStops is a pod stopped at 500 ms whose a and b exit 0 on its SIGTERM, which the
// runtime does not record (no SignalSent); b reports the signal's arrival, a does so only when
// aReports.
func unrecordedStops(aReports bool) *hist {
	sigterm := func(p *probe.Event) { p.Signal = "SIGTERM" }
	h := twoMains().work(120, "a", probe.TypeStart).work(130, "b", probe.TypeStart).
		stop(500, false).terminating(501)
	if aReports {
		h.work(520, "a", probe.TypeSignal, sigterm)
	}
	return h.work(521, "a", probe.TypeExit, code(0)).work(522, "b", probe.TypeSignal, sigterm).
		work(523, "b", probe.TypeExit, code(0)).exit(530, "a", 0, "Stopped").exit(531, "b", 0, "Stopped").
		finish(600, v1alpha1.PodSucceeded, 0, "", "Stopped")
}

// modelCase is one hand-written history and the rules of the findings it must produce.
type modelCase struct {
	name string
	h    *hist
	want []string // the rules of the findings, in any order; nil: the history conforms
}

func TestModel(t *testing.T) {
	for _, tc := range append(modelCases(), notificationCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			v := Check(tc.h.history(), opts)
			got := findingRules(v)
			want := append([]string(nil), tc.want...)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("findings %v, want %v\n%s", got, want, v)
			}
			for _, id := range want {
				if !slices.Contains(v.Checked, id) {
					t.Errorf("%s found but not listed as checked", id)
				}
			}
		})
	}
}

func findingRules(v *Verdict) []string {
	var got []string
	for _, f := range v.Findings {
		got = append(got, f.Rule)
	}
	slices.Sort(got)
	return got
}

// Every rule of the table is needed: without it, some hand-written history is judged otherwise.
func TestEveryRuleHasACaseThatNeedsIt(t *testing.T) {
	all := rules
	defer func() { rules = all }()
	cases := append(modelCases(), notificationCases()...)
	for i, r := range all {
		rules = append(append([]rule(nil), all[:i]...), all[i+1:]...)
		needed := false
		for _, tc := range cases {
			want := append([]string(nil), tc.want...)
			slices.Sort(want)
			if !slices.Equal(findingRules(Check(tc.h.history(), opts)), want) {
				needed = true
				break
			}
		}
		if !needed {
			t.Errorf("the rule of %v can be removed and every case still passes: it has no case", r.ids)
		}
	}
}

// modelCases are every hand-written history: the lifecycle's, the defers', the probes', what
// containers see, updates' and a supervisor's loss.
func modelCases() []modelCase {
	return slices.Concat(lifecycleCases(), deferCases(), probeCases(), viewCases(), updateCases(), supervisorCases(), stopSeqCases(), targetCases(), depCases(), crossDeliveryCases(), lostDeliveryCases(), volumeCases(), imageCases(), exitCases())
}

func lifecycleCases() []modelCase {
	anyNever := policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAny)
	return []modelCase{
		{"two main containers exiting 0 under All succeed, decided by the last", twoMains().
			exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed"), nil},
		{"a policy stop under Any succeeds, decided by the first exit", stoppedB(twoMains(anyNever)), nil},
		{"a stopped container that had reported exiting on its own may be either", twoMains(anyNever).
			work(100, "a", probe.TypeStart).work(110, "b", probe.TypeStart).work(990, "a", probe.TypeExit, code(0)).
			work(1000, "b", probe.TypeExit, code(0)).
			exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
			signal(1003, "b", "SIGTERM").exit(1100, "b", 0, "Completed").
			finish(1200, v1alpha1.PodSucceeded, 0, "a", "Completed"), nil},
		// podman's shape (its adapter cannot see the signals podman sends): no SignalSent, but the
		// workloads reported their stop signal's arrival in the stop sequence, so Stopped is one
		// reading; a's reason, with no such report, is judged on the events alone.
		{"a container that reported its stop signal in the stop sequence, none recorded, may be Stopped", unrecordedStops(true), nil},
		{"without that report, the same Stopped breaks STAT-006", unrecordedStops(false), []string{spec.STAT006}},
		{"a pod finished Failed that the history makes Succeeded breaks EXIT-014", twoMains(anyNever).
			exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
			signal(1003, "b", "SIGTERM").killed(1100, "b", "SIGTERM", "StoppedByPolicy").
			// b, which the runtime stopped and which died of its stop signal, decides nothing.
			finish(1200, v1alpha1.PodFailed, 143, "b", "Completed"), []string{spec.EXIT013, spec.EXIT014, spec.EXIT014}},
		{"a failure whose restart the stop cancelled is terminal and fails the pod (EXIT-014)", twoMains(policy(v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAll)).
			exit(200, "a", 3, "Error").add(201, runtimev1.EventContainerRestarting, "a").
			stop(500, false).terminating(501).signal(502, "b", "SIGTERM").exit(510, "b", 0, "Stopped").
			finish(600, v1alpha1.PodSucceeded, 0, "", "Stopped"), []string{spec.EXIT014, spec.EXIT014}},
		{"the same history finished Failed, decided by the cancelled failure, conforms", twoMains(policy(v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAll)).
			exit(200, "a", 3, "Error").add(201, runtimev1.EventContainerRestarting, "a").
			stop(500, false).terminating(501).signal(502, "b", "SIGTERM").exit(510, "b", 0, "Stopped").
			finish(600, v1alpha1.PodFailed, 3, "a", "Stopped"), nil},
		{"a Failed pod decided by the later failure breaks EXIT-015", twoMains().
			exit(1000, "a", 3, "Error").exit(2000, "b", 4, "Error").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodFailed, 4, "b", "Failed"), []string{spec.EXIT015, spec.EXIT015}},
		{"a Succeeded pod decided by nobody after the policy fired breaks EXIT-016", twoMains().
			exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodSucceeded, 0, "", "Completed"), []string{spec.EXIT016, spec.EXIT016}},
		{"a deciding signal death reported as exit code 1 breaks EXIT-017", twoMains().
			killed(1000, "a", "SIGSEGV", "Signaled").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodFailed, 1, "a", "Failed"), []string{spec.EXIT017, spec.EXIT017}},
		{"a forced pod with exit code 0 breaks EXIT-018", twoMains().
			stop(500, true).terminating(501).signal(502, "a", "SIGKILL").signal(502, "b", "SIGKILL").
			killed(600, "a", "SIGKILL", "Forced").killed(600, "b", "SIGKILL", "Forced").
			finish(700, v1alpha1.PodFailed, 0, "", "Forced"), []string{spec.EXIT018, spec.EXIT018}},
		{"a forced stop reported as Stopped breaks FORCE-006", twoMains().
			stop(500, true).terminating(501).signal(502, "a", "SIGKILL").signal(502, "b", "SIGKILL").
			killed(600, "a", "SIGKILL", "Forced").killed(600, "b", "SIGKILL", "Forced").
			finish(700, v1alpha1.PodFailed, 1, "", "Stopped"),
			// A Stopped pod whose containers were stopped would have Succeeded: the phase follows
			// the wrong reason.
			[]string{spec.EXIT014, spec.EXIT014, spec.FORCE006, spec.FORCE006}},
		{"an Any policy that never fires breaks EXIT-004", twoMains(anyNever).
			exit(1000, "a", 0, "Completed").stop(5000, false).terminating(5001).
			signal(5002, "b", "SIGTERM").killed(5100, "b", "SIGTERM", "Stopped").
			finish(5200, v1alpha1.PodSucceeded, 0, "", "Stopped"), []string{spec.EXIT004}},
		{"a policy that fires twice breaks EXIT-007", stoppedB(twoMains(anyNever)).fire(1201, "a"), []string{spec.EXIT007}},
		{"an All policy fired by an exit that restarts breaks EXIT-002", twoMains(policy(v1alpha1.RestartPolicyAlways, v1alpha1.ExitPolicyAll)).
			exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
			signal(1003, "b", "SIGTERM").killed(1100, "b", "SIGTERM", "StoppedByPolicy").
			finish(1200, v1alpha1.PodFailed, 1, "", "Completed"), []string{spec.EXIT002, spec.EXIT014, spec.EXIT014}},
		{"a policy stop after a success reported Failed breaks EXIT-006", twoMains(anyNever).
			exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
			signal(1003, "b", "SIGTERM").killed(1100, "b", "SIGTERM", "StoppedByPolicy").
			finish(1200, v1alpha1.PodSucceeded, 0, "a", "Failed"), []string{spec.EXIT006, spec.EXIT006}},
		{"an instance stopped by the policy reported Completed breaks STAT-006", twoMains(anyNever).
			exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
			signal(1003, "b", "SIGTERM").exit(1100, "b", 0, "Completed").
			finish(1200, v1alpha1.PodSucceeded, 0, "a", "Completed"), []string{spec.STAT006}},
		{"an exit code other than the workload's breaks STAT-001", twoMains().
			work(100, "a", probe.TypeStart).work(110, "b", probe.TypeStart).work(990, "a", probe.TypeExit, code(3)).
			exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed"), []string{spec.STAT001}},
		{"an exit with both a code and a signal breaks STAT-002", stoppedBWith(func(h *hist) *hist {
			return h.signal(1003, "b", "SIGTERM").add(1100, runtimev1.EventContainerExited, "b", func(e *runtimev1.Event) {
				e.ExitCode, e.Signal, e.Reason = i32(0), signal("SIGTERM"), "StoppedByPolicy"
			})
		}), []string{spec.STAT002}},
		{"a signal with the wrong number breaks STAT-002", stoppedBWith(func(h *hist) *hist {
			return h.signal(1003, "b", "SIGTERM").add(1100, runtimev1.EventContainerExited, "b", func(e *runtimev1.Event) {
				e.Signal, e.Reason = &v1alpha1.Signal{Name: "SIGTERM", Number: 9}, "StoppedByPolicy"
			})
		}), []string{spec.STAT002}},
		{"a crash reported as an exit code breaks STAT-003", twoMains().
			work(100, "a", probe.TypeStart).work(110, "b", probe.TypeStart).work(990, "a", probe.TypeCrash, func(p *probe.Event) { p.Signal = "SIGSEGV" }).
			exit(1000, "a", 139, "Error").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodFailed, 139, "a", "Failed"), []string{spec.STAT003}},
		{"a final state that differs from the last ContainerExited breaks STAT-008", func() *hist {
			h := twoMains().exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
				finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed")
			h.final.ContainerStatuses = []v1alpha1.ContainerStatus{{Name: "a", State: v1alpha1.ContainerState{Terminated: &v1alpha1.ContainerStateTerminated{ExitCode: i32(1), Reason: "Error"}}}}
			return h
		}(), []string{spec.STAT008}},
		{"a main container restarted under Never breaks RST-003", twoMains().
			exit(1000, "a", 1, "Error").start(1500, "a").exit(1600, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodFailed, 1, "a", "Failed"), []string{spec.RST003}},
		{"a failure under OnFailure not restarted within its back-off breaks RST-003", twoMains(policy(v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAll)).
			exit(1000, "a", 1, "Error").exit(2000, "b", 0, "Completed").stop(5000, false).terminating(5001).
			finish(5100, v1alpha1.PodFailed, 1, "a", "Stopped"), []string{spec.RST003}},
		{"a restart sooner than its back-off breaks RST-008", twoMains(policy(v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAll)).
			exit(1000, "a", 1, "Error").start(1100, "a").exit(1500, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed"), []string{spec.RST008}},
		{"a restart counted twice breaks RST-006", twoMains(policy(v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAll)).
			exit(1000, "a", 1, "Error").add(1300, runtimev1.EventContainerStarted, "a", func(e *runtimev1.Event) { e.RestartCount = i32(2) }).
			exit(1500, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed"), []string{spec.RST006}},
		{"a main container started before its init container exited breaks HB-003", pod(inits("i"), mains("a")).
			start(100, "i").start(200, "a").exit(300, "i", 0, "Completed").exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
			finish(1100, v1alpha1.PodSucceeded, 0, "a", "Completed"), []string{spec.HB003}},
		{"an init container started before the previous exited breaks HB-001", pod(inits("i", "j"), mains("a")).
			start(100, "i").start(150, "j").exit(200, "i", 0, "Completed").exit(250, "j", 0, "Completed").
			start(300, "a").exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
			finish(1100, v1alpha1.PodSucceeded, 0, "a", "Completed"), []string{spec.HB001}},
		{"a sidecar gates the next entry on Started", pod(sidecars("s"), inits("j"), mains("a")).
			start(100, "s").start(150, "j").exit(250, "j", 0, "Completed").
			start(300, "a").exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
			signal(1003, "s", "SIGTERM").killed(1100, "s", "SIGTERM", "StoppedByPolicy").
			finish(1200, v1alpha1.PodSucceeded, 0, "a", "Completed"), nil},
		{"an init container run again after exiting 0 breaks INIT-001", pod(inits("i"), mains("a")).
			start(100, "i").exit(200, "i", 0, "Completed").start(500, "i").exit(600, "i", 0, "Completed").
			start(700, "a").exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
			finish(1100, v1alpha1.PodSucceeded, 0, "a", "Completed"), []string{spec.INIT001}},
		{"a main container started after its init container failed breaks INIT-003", pod(inits("i"), mains("a")).
			start(100, "i").exit(200, "i", 1, "Error").terminating(201).start(300, "a").exit(400, "a", 0, "Completed").
			finish(500, v1alpha1.PodFailed, 1, "i", "Failed"), []string{spec.HB003, spec.INIT003, spec.MAIN002, spec.MAIN004}},
		{"a dependent started before its dependency completed breaks HB-004", pod(mains("a", "b"), withC("b", dependsOnCompleted("a"))).
			start(100, "a").start(200, "b").exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed"), []string{spec.HB004}},
		{"two instances of one container at once break HB-008", pod(mains("a", "b"), policy(v1alpha1.RestartPolicyAlways, v1alpha1.ExitPolicyAll)).
			start(100, "a", id("a1")).start(110, "b").start(500, "a", id("a2")).stop(1000, false).terminating(1001).
			signal(1002, "a", "SIGTERM", id("a1")).signal(1002, "a", "SIGTERM", id("a2")).signal(1002, "b", "SIGTERM").
			killed(1100, "a", "SIGTERM", "Stopped", id("a1")).killed(1100, "a", "SIGTERM", "Stopped", id("a2")).killed(1100, "b", "SIGTERM", "Stopped").
			finish(1200, v1alpha1.PodSucceeded, 0, "", "Stopped"), []string{spec.HB008}},
		{"a sidecar not restarted before the sidecars' step breaks SIDE-001", pod(sidecars("s"), mains("a")).
			start(100, "s").start(200, "a").exit(300, "s", 0, "Completed").exit(5000, "a", 0, "Completed").fire(5001, "a").terminating(5002).
			finish(5100, v1alpha1.PodSucceeded, 0, "a", "Completed"), []string{spec.SIDE001}},
		{"a stop signal sent twice breaks STOP-007", stoppedBWith(func(h *hist) *hist {
			return h.signal(1003, "b", "SIGTERM").signal(1050, "b", "SIGTERM").killed(1100, "b", "SIGTERM", "StoppedByPolicy")
		}), []string{spec.STOP007}},
		{"SIGKILL within the minimum stop window breaks STOP-008", stoppedBWith(func(h *hist) *hist {
			return h.signal(1003, "b", "SIGTERM").signal(2003, "b", "SIGKILL").killed(2100, "b", "SIGKILL", "StoppedByPolicy")
		}), []string{spec.STOP008}},
		{"SIGKILL without a stop signal breaks STOP-006", stoppedBWith(func(h *hist) *hist {
			return h.signal(4003, "b", "SIGKILL").killed(4100, "b", "SIGKILL", "StoppedByPolicy")
		}), []string{spec.STOP006}},
		{"SIGKILL after the window but before the budget end breaks TIME-001", stoppedBWith(func(h *hist) *hist {
			return h.signal(1003, "b", "SIGTERM").signal(3500, "b", "SIGKILL").killed(3600, "b", "SIGKILL", "StoppedByPolicy")
		}), []string{spec.TIME001}},
		{"SIGKILL at the end of a budget shorter than the window conforms", func() *hist {
			h := stoppedBWith(func(h *hist) *hist {
				return h.signal(1100, "b", "SIGTERM").signal(2002, "b", "SIGKILL").killed(2100, "b", "SIGKILL", "StoppedByPolicy")
			})
			one := int64(1)
			h.pod.Spec.TerminationGracePeriodSeconds = &one
			return h
		}(), nil},
		{"SIGKILL at the budget end conforms", stoppedBWith(func(h *hist) *hist {
			return h.signal(1003, "b", "SIGTERM").signal(4002, "b", "SIGKILL").killed(4100, "b", "SIGKILL", "StoppedByPolicy")
		}), nil},
		{"a main container created after PodTerminating breaks MAIN-002", stoppedB(twoMains(anyNever)).
			add(1150, runtimev1.EventContainerCreated, "a"), []string{spec.MAIN002}},
		{"a stop signal before the preStop hook ended breaks HB-012", stoppedBWith(func(h *hist) *hist {
			return h.hook(1003, "b", runtimev1.EventHookStarted, runtimev1.HookPreStop).signal(1004, "b", "SIGTERM").
				hook(1050, "b", runtimev1.EventHookFinished, runtimev1.HookPreStop).killed(1100, "b", "SIGTERM", "StoppedByPolicy")
		}, withC("b", preStop)), []string{spec.HB012}},
		{"a stop signal before the preStop hook started breaks HB-012", stoppedBWith(func(h *hist) *hist {
			return h.signal(1003, "b", "SIGTERM").hook(1004, "b", runtimev1.EventHookStarted, runtimev1.HookPreStop).
				hook(1050, "b", runtimev1.EventHookFinished, runtimev1.HookPreStop).killed(1100, "b", "SIGTERM", "StoppedByPolicy")
		}, withC("b", preStop)), []string{spec.HB012}},
		{"a stop signal after the preStop hook reported its end conforms", stoppedBWith(func(h *hist) *hist {
			return h.hook(1003, "b", runtimev1.EventHookStarted, runtimev1.HookPreStop).
				report(1040, "b", probe.RoleHook, "preStop", probe.TypeHandlerEnd, 0).signal(1045, "b", "SIGTERM").
				hook(1050, "b", runtimev1.EventHookFinished, runtimev1.HookPreStop).killed(1100, "b", "SIGTERM", "StoppedByPolicy")
		}, withC("b", preStop)), nil},
		{"a postStart hook before its instance runs breaks HB-005", pod(mains("a", "b"), withC("a", postStart)).
			add(90, runtimev1.EventContainerCreated, "a").hook(95, "a", runtimev1.EventHookStarted, runtimev1.HookPostStart).
			start(100, "a").hook(120, "a", runtimev1.EventHookFinished, runtimev1.HookPostStart).
			start(110, "b").exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
			finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed"), []string{spec.HB005}},
		{"a preStop hook after a forced stop breaks FORCE-003", twoMains(withC("a", preStop)).
			stop(500, true).terminating(501).hook(502, "a", runtimev1.EventHookStarted, runtimev1.HookPreStop).
			signal(503, "a", "SIGKILL").signal(503, "b", "SIGKILL").
			killed(600, "a", "SIGKILL", "Forced").killed(600, "b", "SIGKILL", "Forced").
			finish(700, v1alpha1.PodFailed, 1, "", "Forced"), []string{spec.FORCE003, spec.HOOK011}},
		{"a postStart hook after a forced stop breaks MAIN-005", twoMains(withC("a", postStart)).
			hook(120, "a", runtimev1.EventHookFinished, runtimev1.HookPostStart).
			stop(500, true).terminating(501).hook(502, "a", runtimev1.EventHookStarted, runtimev1.HookPostStart).
			signal(503, "a", "SIGKILL").signal(503, "b", "SIGKILL").
			killed(600, "a", "SIGKILL", "Forced").killed(600, "b", "SIGKILL", "Forced").
			finish(700, v1alpha1.PodFailed, 1, "", "Forced"), []string{spec.MAIN005}},
		{"a postStart hook before a forced stop conforms", twoMains(withC("a", postStart)).
			hook(101, "a", runtimev1.EventHookStarted, runtimev1.HookPostStart).
			stop(500, true).terminating(501).signal(503, "a", "SIGKILL").signal(503, "b", "SIGKILL").
			killed(600, "a", "SIGKILL", "Forced").killed(600, "b", "SIGKILL", "Forced").
			finish(700, v1alpha1.PodFailed, 1, "", "Forced"), nil},
		{"an AfterStop defer before the main containers exited breaks HB-013", twoMains(anyNever, defers(v1alpha1.DeferAfterStop, "d")).
			exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
			signal(1003, "b", "SIGTERM").start(1010, "d").exit(1050, "d", 0, "Completed").killed(1100, "b", "SIGTERM", "StoppedByPolicy").
			finish(1200, v1alpha1.PodSucceeded, 0, "a", "Completed"), []string{spec.HB013}},
		{"two defers at once break HB-010", twoMains(anyNever, defers(v1alpha1.DeferAfterStop, "d", "e")).
			exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
			signal(1003, "b", "SIGTERM").killed(1100, "b", "SIGTERM", "StoppedByPolicy").
			start(1110, "d").start(1120, "e").exit(1150, "d", 0, "Completed").exit(1160, "e", 0, "Completed").
			finish(1200, v1alpha1.PodSucceeded, 0, "a", "Completed"), []string{spec.HB010}},
		{"a stop signal before a BeforeStop defer ended breaks HB-009", twoMains(anyNever, defers(v1alpha1.DeferBeforeStop, "d")).
			exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).start(1010, "d").
			signal(1020, "b", "SIGTERM").exit(1050, "d", 0, "Completed").killed(1100, "b", "SIGTERM", "StoppedByPolicy").
			finish(1200, v1alpha1.PodSucceeded, 0, "a", "Completed"), []string{spec.HB009}},
		{"a sidecar stopped before the main containers exited breaks HB-014", pod(sidecars("s"), mains("a"), policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAll)).
			start(100, "s").start(200, "a").stop(1000, false).terminating(1001).signal(1002, "s", "SIGTERM").signal(1002, "a", "SIGTERM").
			killed(1100, "s", "SIGTERM", "Stopped").killed(1100, "a", "SIGTERM", "Stopped").
			finish(1200, v1alpha1.PodSucceeded, 0, "", "Stopped"), []string{spec.HB014}},
		{"a sidecar killed by its liveness probe during the stop sequence, before its stop step, conforms (HB-014, HB-015)",
			livenessKilledSidecar("Unhealthy"), nil},
		{"that sidecar's kill is no stop: reason Stopped breaks STAT-006", livenessKilledSidecar(v1alpha1.ReasonStopped), []string{spec.STAT006}},
		{"that sidecar with a preStop hook, sent its stop signal for its health before the hook ran, conforms (HB-012, HOOK-011; seed 7200)",
			livenessKilledSidecar("Unhealthy", withC("s", preStop)), nil},
		{"a sidecar killed for its failed postStart hook during the stop sequence, then SIGKILLed at the budget end, ending Stopped conforms (seed 3000)",
			postStartKilledSidecar(1000, v1alpha1.ReasonStopped), nil},
		{"that budget end's SIGKILL is a stop: reason StartError breaks STAT-006", postStartKilledSidecar(1000, v1alpha1.ReasonStartError), []string{spec.STAT006}},
		{"a SIGKILL at the budget end when the kill's own SIGKILL was due may be either: StartError conforms", postStartKilledSidecar(400, v1alpha1.ReasonStartError), nil},
		{"... and so does Stopped", postStartKilledSidecar(400, v1alpha1.ReasonStopped), nil},
		{"a sidecar killed for its failed postStart hook, then sent its stop step's stop signal, ending Stopped conforms (seed 3000's replay)",
			postStartKilledSidecar(400, v1alpha1.ReasonStopped, stopStep), nil},
		{"that second stop signal is its stop step's: reason StartError breaks STAT-006", postStartKilledSidecar(400, v1alpha1.ReasonStartError, stopStep), []string{spec.STAT006}},
		{"sidecars stopped in list order break HB-015", pod(sidecars("s", "t"), mains("a"), policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAll)).
			start(100, "s").start(150, "t").start(200, "a").stop(1000, false).terminating(1001).signal(1002, "a", "SIGTERM").
			killed(1100, "a", "SIGTERM", "Stopped").signal(1101, "s", "SIGTERM").killed(1150, "s", "SIGTERM", "Stopped").
			signal(1151, "t", "SIGTERM").killed(1180, "t", "SIGTERM", "Stopped").
			finish(1200, v1alpha1.PodSucceeded, 0, "", "Stopped"), []string{spec.HB015}},
		{"a pod finished before its last exit breaks HB-016", twoMains().
			exit(1000, "a", 0, "Completed").fire(1001, "b").terminating(1002).
			finish(1100, v1alpha1.PodSucceeded, 0, "b", "Completed").exit(1200, "b", 0, "Completed"),
			// The history is broken beyond HB-016: b's late exit fired nothing the model replays,
			// and finishedAt precedes it.
			[]string{spec.EXIT002, spec.EXIT011, spec.EXIT016, spec.EXIT016, spec.HB016}},
		{"an init entry started before the sidecar before it was Started breaks HB-002", pod(sidecars("s"), inits("j"), mains("a"), withC("s", postStart)).
			start(100, "s").hook(101, "s", runtimev1.EventHookStarted, runtimev1.HookPostStart).start(150, "j").
			hook(200, "s", runtimev1.EventHookFinished, runtimev1.HookPostStart).exit(250, "j", 0, "Completed").
			start(300, "a").exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
			signal(1003, "s", "SIGTERM").killed(1100, "s", "SIGTERM", "StoppedByPolicy").
			finish(1200, v1alpha1.PodSucceeded, 0, "a", "Completed"), []string{spec.HB002}},
		{"an AnyFailure policy that does not fire at the first failure breaks EXIT-005", twoMains(policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAnyFailure)).
			exit(1000, "a", 3, "Error").exit(3000, "b", 0, "Completed").fire(3001, "b").terminating(3002).
			// PolicyFired names b, whose exit comes after the one that fires AnyFailure.
			finish(3100, v1alpha1.PodFailed, 3, "a", "Failed"), []string{spec.EXIT005, spec.EXIT008}},
		{"a deadline's stop reported Stopped breaks DL-002", twoMains().
			add(500, runtimev1.EventStopRequested, "", func(e *runtimev1.Event) { e.Reason = "DeadlineExceeded" }).terminating(501).
			signal(502, "a", "SIGTERM").signal(502, "b", "SIGTERM").
			killed(600, "a", "SIGTERM", "Stopped").killed(600, "b", "SIGTERM", "Stopped").
			finish(700, v1alpha1.PodFailed, 1, "", "Stopped"),
			// The instances' reasons follow the pod's wrong reason, and so does the phase.
			[]string{spec.DL002, spec.DL002, spec.EXIT014, spec.EXIT014}},
		{"an eviction's stop ends the pod Failed with reason Evicted: conforms", evicted(v1alpha1.PodFailed, "Evicted"), nil},
		{"an eviction reported Succeeded breaks EXIT-014", evicted(v1alpha1.PodSucceeded, "Evicted"), []string{spec.EXIT014, spec.EXIT014}},
		{"an eviction reported Stopped breaks VOL-016", evicted(v1alpha1.PodFailed, "Stopped"),
			// The instances' reasons follow the pod's wrong reason, and so does the phase.
			[]string{spec.VOL016, spec.VOL016, spec.EXIT014, spec.EXIT014}},
		{"probe attempts after the postStart hook and the startup probe conform", gated(func(h *hist) *hist {
			return h.report(300, "a", probe.RoleHook, "postStart", probe.TypeHandlerEnd, 0).
				report(400, "a", probe.RoleCheck, "startup", probe.TypeCheck, 0).
				report(500, "a", probe.RoleCheck, "readiness", probe.TypeCheck, 0)
		}), nil},
		{"a startup attempt before the postStart hook succeeded breaks HB-006", gated(func(h *hist) *hist {
			return h.report(250, "a", probe.RoleCheck, "startup", probe.TypeCheck, 0).
				report(300, "a", probe.RoleHook, "postStart", probe.TypeHandlerEnd, 0).
				report(500, "a", probe.RoleCheck, "readiness", probe.TypeCheck, 0)
		}), []string{spec.HB006}},
		{"a readiness attempt before the startup probe passed breaks HB-007", gated(func(h *hist) *hist {
			return h.report(300, "a", probe.RoleHook, "postStart", probe.TypeHandlerEnd, 0).
				report(350, "a", probe.RoleCheck, "readiness", probe.TypeCheck, 0).
				report(400, "a", probe.RoleCheck, "startup", probe.TypeCheck, 0)
		}), []string{spec.HB007}},
		{"a container left running past the budget end without SIGKILL breaks STOP-010", stoppedBWith(func(h *hist) *hist {
			return h.signal(1003, "b", "SIGTERM").killed(6000, "b", "SIGTERM", "StoppedByPolicy")
		}), []string{spec.STOP010}},
		{"a deadline that fires on time conforms", deadline(1000), nil},
		{"a deadline that fires early breaks DL-002", deadline(500), []string{spec.DL002}},
		{"a deadline that fires late breaks DL-002", deadline(3000), []string{spec.DL002}},
		{"a dependent started once its dependency completed conforms", pod(mains("a", "b"), withC("b", dependsOnCompleted("a"))).
			start(100, "a").exit(200, "a", 0, "Completed").start(300, "b").exit(1000, "b", 0, "Completed").fire(1001, "b").terminating(1002).
			finish(1100, v1alpha1.PodSucceeded, 0, "b", "Completed"), nil},
		{"a dependent failed when its dependency failed before completing conforms", depFailure(true), nil},
		{"a dependent left waiting when its dependency failed before completing breaks DEP-012", depFailure(false), []string{spec.DEP012}},
		{"a main container never started in a stopped pod, not skipped, breaks MAIN-003", func() *hist {
			h := pod(inits("i"), mains("a")).start(100, "i").stop(200, false).terminating(201).
				signal(202, "i", "SIGTERM").killed(300, "i", "SIGTERM", "Stopped").
				finish(400, v1alpha1.PodFailed, 1, "", "Stopped")
			h.final.ContainerStatuses = []v1alpha1.ContainerStatus{{Name: "a", State: v1alpha1.ContainerState{Waiting: &v1alpha1.ContainerStateWaiting{Reason: "PodInitializing"}}}}
			return h
		}(), []string{spec.MAIN003}},
		{"a defer a forced stop overtook, not skipped Forced, breaks FORCE-004", func() *hist {
			h := twoMains(defers(v1alpha1.DeferAfterStop, "d")).
				stop(500, true).terminating(501).signal(502, "a", "SIGKILL").signal(502, "b", "SIGKILL").
				killed(600, "a", "SIGKILL", "Forced").killed(600, "b", "SIGKILL", "Forced").
				finish(700, v1alpha1.PodFailed, 1, "", "Forced")
			h.final.DeferContainerStatuses = []v1alpha1.ContainerStatus{{Name: "d", State: v1alpha1.ContainerState{Skipped: &v1alpha1.ContainerStateSkipped{Reason: "BudgetExhausted"}}}}
			return h
		}(), []string{spec.FORCE004}},
		{"ContainerExited out of finishedAt order breaks STAT-007", twoMains().
			exit(1000, "a", 0, "Completed").exit(900, "b", 0, "Completed").fire(1001, "b").terminating(1002).
			finish(1100, v1alpha1.PodSucceeded, 0, "b", "Completed"), []string{spec.STAT007}},
		{"one delivery to a running instance conforms", delivered(func(h *hist) *hist {
			return h.notify(300, "a", "n", "x", runtimev1.EventNotifierStarted).notify(400, "a", "n", "x", runtimev1.EventNotifierFinished)
		}), nil},
		{"a delivery of a notifier the container does not declare breaks NTF-004", delivered(func(h *hist) *hist {
			return h.notify(300, "a", "other", "x", runtimev1.EventNotifierStarted).notify(400, "a", "other", "x", runtimev1.EventNotifierFinished)
		}), []string{spec.NTF004}},
		{"a delivery to an exited container breaks NTF-009", delivered(func(h *hist) *hist {
			return h.notify(1500, "a", "n", "x", runtimev1.EventNotifierStarted).notify(1600, "a", "n", "x", runtimev1.EventNotifierFinished)
		}), []string{spec.NTF009}},
		{"a Notification delivered twice to one instance breaks NTF-010", delivered(func(h *hist) *hist {
			return h.notify(300, "a", "n", "x", runtimev1.EventNotifierStarted).notify(400, "a", "n", "x", runtimev1.EventNotifierFinished).
				notify(500, "a", "n", "x", runtimev1.EventNotifierStarted).notify(600, "a", "n", "x", runtimev1.EventNotifierFinished)
		}), []string{spec.NTF010}},
		{"a delivery's action after PodTerminating breaks MAIN-005", func() *hist {
			h := twoMains(withC("a", func(c *v1alpha1.Container) {
				c.Notifiers = []v1alpha1.Notifier{{Name: "n", Action: v1alpha1.NotifierAction{Signal: "SIGUSR1"}}}
			}))
			return h.stop(500, false).terminating(501).notify(502, "a", "n", "x", runtimev1.EventNotifierStarted).
				notify(503, "a", "n", "x", runtimev1.EventNotifierFinished).
				signal(504, "a", "SIGTERM").signal(504, "b", "SIGTERM").
				killed(600, "a", "SIGTERM", "Stopped").killed(600, "b", "SIGTERM", "Stopped").
				finish(700, v1alpha1.PodSucceeded, 0, "", "Stopped")
		}(), []string{spec.MAIN005}},
		{"two deliveries of one notifier at once break HB-017", delivered(func(h *hist) *hist {
			return h.notify(300, "a", "n", "x", runtimev1.EventNotifierStarted).notify(310, "a", "n", "y", runtimev1.EventNotifierStarted).
				notify(400, "a", "n", "x", runtimev1.EventNotifierFinished).notify(410, "a", "n", "y", runtimev1.EventNotifierFinished)
		}), []string{spec.HB017}},
	}
}

func code(c int) func(*probe.Event) { return func(p *probe.Event) { p.ExitCode = &c } }

// stoppedBWith is stoppedB (exit policy Any, grace 3 s) with b's stop written by stopB.
func stoppedBWith(stopB func(*hist) *hist, extra ...podOpt) *hist {
	h := twoMains(append([]podOpt{policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAny)}, extra...)...).
		exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002)
	h = stopB(h)
	last := h.ev[len(h.ev)-1].Time.Sub(t0).Milliseconds()
	return h.finish(int(last)+100, v1alpha1.PodSucceeded, 0, "a", "Completed")
}

func TestRulesNameCatalogRequirements(t *testing.T) {
	for _, r := range rules {
		for _, id := range r.ids {
			r, ok := spec.Lookup(id)
			switch {
			case !ok:
				t.Errorf("rule names %s, which the catalog does not hold", id)
			case r.Level != spec.Must:
				// A model spec fails a run whatever its compliance level: it judges MUSTs only.
				t.Errorf("rule names %s, a %s", id, r.Level)
			}
		}
	}
	p := &v1alpha1.Pod{Spec: v1alpha1.PodSpec{Containers: []v1alpha1.Container{{Name: "a"}}}}
	got := Rules(p, Schedule{})
	if slices.Contains(got, spec.HB001) || !slices.Contains(got, spec.EXIT014) {
		t.Errorf("Rules of a one-container pod: %v", got)
	}
	// Judged is every rule's IDs, whatever the manifest: those Rules leaves out for this pod too.
	judged := Judged()
	for _, r := range rules {
		for _, id := range r.ids {
			if !slices.Contains(judged, id) {
				t.Errorf("Judged lacks %s, a rule's requirement", id)
			}
		}
	}
	if !slices.IsSorted(judged) || len(slices.Compact(slices.Clone(judged))) != len(judged) {
		t.Errorf("Judged is not sorted and without repeats: %v", judged)
	}
}

func TestUpdatesAreNotJudgedByRestartRules(t *testing.T) {
	h := twoMains().exit(1000, "a", 1, "Error").start(1010, "a").add(1020, runtimev1.EventUpdateApplied, "").
		exit(2000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
		finish(2100, v1alpha1.PodFailed, 1, "a", "Failed")
	v := Check(h.history(), opts)
	if !v.Conforms() {
		t.Fatalf("an updated history is judged by restart rules:\n%s", v)
	}
	if !strings.Contains(v.String(), "["+spec.RST003+"] an update") {
		t.Errorf("the verdict does not say why RST-003 was not judged:\n%s", v)
	}
}

// delivered is a pod whose main container a (notifier n) and b run from 0.1 s to 1 s and 2 s,
// with deliveries written by deliver.
func delivered(deliver func(*hist) *hist) *hist {
	h := twoMains(withC("a", func(c *v1alpha1.Container) {
		c.Notifiers = []v1alpha1.Notifier{{Name: "n", Action: v1alpha1.NotifierAction{Signal: "SIGUSR1"}}}
	}))
	h = deliver(h)
	sort.SliceStable(h.ev, func(i, j int) bool { return h.ev[i].Time.Before(h.ev[j].Time) })
	h.exit(1000, "a", 0, "Completed")
	sort.SliceStable(h.ev, func(i, j int) bool { return h.ev[i].Time.Before(h.ev[j].Time) })
	for i := range h.ev {
		h.ev[i].Seq = int64(i + 1)
	}
	return h.exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
		finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed")
}

func (h *hist) notify(ms int, c, notifier, notification string, typ runtimev1.EventType) *hist {
	return h.add(ms, typ, c, func(e *runtimev1.Event) { e.Notifier, e.Notification = notifier, notification })
}

// gated is a pod whose main container a has a postStart hook, a startup and a readiness probe,
// with a's workload start reported at 0.1 s and the hook's and probes' reports written by rep.
func gated(rep func(*hist) *hist) *hist {
	h := twoMains(withC("a", func(c *v1alpha1.Container) {
		postStart(c)
		check := &v1alpha1.Probe{Exec: &v1alpha1.ExecAction{Command: []string{"x"}}}
		c.StartupProbe, c.ReadinessProbe = check, check
	})).work(100, "a", probe.TypeStart)
	return rep(h).exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
		finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed")
}

// report records a hook's, probe's or notifier's report: its end or check result with code.
func (h *hist) report(ms int, c, role, handler, typ string, code int) *hist {
	p := probe.Event{Container: c, Role: role, Handler: handler, Type: typ, ExitCode: &code, Received: t0.Add(time.Duration(ms) * time.Millisecond)}
	if typ == probe.TypeCheck {
		p.Result = "success"
		if code != 0 {
			p.Result = "failure"
		}
	}
	h.probe = append(h.probe, p)
	return h
}

// deadline is a pod with activeDeadlineSeconds 1 started at 0 whose deadline fires at ms.
func deadline(ms int) *hist {
	h := twoMains(func(p *v1alpha1.Pod) { one := int64(1); p.Spec.ActiveDeadlineSeconds = &one }).
		add(ms, runtimev1.EventStopRequested, "", func(e *runtimev1.Event) { e.Reason = "DeadlineExceeded" }).terminating(ms+1).
		signal(ms+2, "a", "SIGTERM").signal(ms+2, "b", "SIGTERM").
		killed(ms+100, "a", "SIGTERM", "DeadlineExceeded").killed(ms+100, "b", "SIGTERM", "DeadlineExceeded").
		finish(ms+200, v1alpha1.PodFailed, 1, "", "DeadlineExceeded")
	h.final.StartedAt = &t0
	return h
}

// evicted is a pod whose volume outgrew its sizeLimit at 500 ms (the runtime's StopRequested of
// reason Evicted), finished with phase and reason, its instances stopped with that reason.
func evicted(phase v1alpha1.PodPhase, reason string) *hist {
	return twoMains().
		add(500, runtimev1.EventStopRequested, "", func(e *runtimev1.Event) { e.Reason = "Evicted" }).terminating(501).
		signal(502, "a", "SIGTERM").signal(502, "b", "SIGTERM").
		killed(600, "a", "SIGTERM", reason).killed(600, "b", "SIGTERM", reason).
		finish(700, phase, 1, "", reason)
}

// depFailure is a pod whose b depends on a Completed and a exits 3 under Never; b is failed for
// it (DependencyFailed) or not.
func depFailure(failed bool) *hist {
	h := pod(mains("a", "b"), withC("b", dependsOnCompleted("a"))).start(100, "a").exit(200, "a", 3, "Error")
	if failed {
		h.add(201, runtimev1.EventDependencyFailed, "b", func(e *runtimev1.Event) { e.Reason = "DependencyFailed" }).
			fire(202, "b").terminating(203).finish(300, v1alpha1.PodFailed, 3, "a", "Failed")
		return h
	}
	return h.stop(5000, false).terminating(5001).finish(5100, v1alpha1.PodFailed, 3, "a", "Stopped")
}

// postStartKilledSidecar is seed 3000's shape: a pod stopped while its sidecar s's postStart
// hook runs (main a never starts); the hook fails at failMs and the runtime kills s for it
// (its stop signal, the kill's, at failMs+1); s ignores it and dies of the SIGKILL sent at the
// budget end (3501, grace 3 s): before the kill's own SIGKILL was due (failMs+1+3000) when
// failMs is after the stop sequence began, at the same time when it is before.
//
// With stopStep, s's stop step sends it its stop signal at 2000, and the kill's own SIGKILL
// (failMs+1+3000) ends it before the budget end.
func postStartKilledSidecar(failMs int, reason string, stopStep ...bool) *hist {
	h := pod(sidecars("s"), mains("a"), withC("s", postStart)).add(0, runtimev1.EventPodCreated, "").
		start(100, "s").hook(110, "s", runtimev1.EventHookStarted, runtimev1.HookPostStart)
	fail := func(h *hist) *hist {
		return h.add(failMs, runtimev1.EventHookFinished, "s", func(e *runtimev1.Event) { e.Hook, e.Result = runtimev1.HookPostStart, runtimev1.ResultFailed }).
			signal(failMs+1, "s", "SIGTERM")
	}
	if failMs < 500 {
		h = fail(h)
	}
	h = h.stop(500, false).terminating(501).skip(502, "a", "Stopped")
	if failMs >= 500 {
		h = fail(h)
	}
	if len(stopStep) > 0 {
		return h.signal(2000, "s", "SIGTERM").signal(failMs+3001, "s", "SIGKILL").killed(failMs+3050, "s", "SIGKILL", reason).
			finish(3450, v1alpha1.PodFailed, 1, "", "Stopped")
	}
	return h.signal(3510, "s", "SIGKILL").killed(3600, "s", "SIGKILL", reason).
		finish(3700, v1alpha1.PodFailed, 1, "", "Stopped")
}

// stopStep is postStartKilledSidecar's option.
const stopStep = true

// livenessKilledSidecar is a pod whose sidecar s fails its liveness probe during the stop
// sequence, before its stop step (a stops first, then t, then s): the runtime kills s for its
// health (terminology: a kill after a probe failure is not a stop), and s ends with reason.
func livenessKilledSidecar(reason string, extra ...podOpt) *hist {
	return pod(append([]podOpt{sidecars("s", "t"), mains("a"), policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAll), withC("s", func(c *v1alpha1.Container) {
		c.LivenessProbe = &v1alpha1.Probe{Exec: &v1alpha1.ExecAction{Command: []string{"podspec-probe", "check"}}, PeriodSeconds: 1, FailureThreshold: 1}
	})}, extra...)...).
		start(100, "s").start(150, "t").start(200, "a").report(1000, "s", probe.RoleCheck, runtimev1.ProbeLiveness, probe.TypeCheck, 0).
		stop(1000, false).terminating(1001).signal(1002, "a", "SIGTERM").
		report(1004, "s", probe.RoleCheck, runtimev1.ProbeLiveness, probe.TypeCheck, 1).
		add(1005, runtimev1.EventProbeFailed, "s", func(e *runtimev1.Event) { e.Probe, e.Reason = runtimev1.ProbeLiveness, "Unhealthy" }).
		signal(1006, "s", "SIGTERM").killed(1050, "s", "SIGTERM", reason).
		killed(1100, "a", "SIGTERM", "Stopped").signal(1101, "t", "SIGTERM").killed(1150, "t", "SIGTERM", "Stopped").
		finish(1200, v1alpha1.PodSucceeded, 0, "", "Stopped")
}
