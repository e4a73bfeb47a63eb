package model

import (
	"fmt"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Rules of the conditions dependencies wait for (DEP-007 … DEP-010): when a container may be
// reported Started and Ready, judged on the runtime's ContainerReady events (the container became
// Started and Ready) against its postStart hook's end and its probe commands' own reports, and on
// the final status; and when a dependency counts as Completed.

// checkReadyEvents judges each ContainerReady against what the instance had done by then: its
// postStart hook had succeeded and its startup probe's command had reported a success (DEP-007,
// Started), and its readiness probe's command had reported successThreshold successes in a row
// (DEP-008; not necessarily the last reports: one may arrive between the runtime's decision and
// its event). A probe's reports are used only where they line up with the instances
// and report every attempt's result (not -quiet): a report arrives before its attempt ends.
func checkReadyEvents(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		if c.spec == nil {
			continue
		}
		startup, startupOK := rp.probeReports(c, runtimev1.ProbeStartup, c.spec.StartupProbe)
		readiness, readinessOK := rp.probeReports(c, runtimev1.ProbeReadiness, c.spec.ReadinessProbe)
		for i := range rp.ev {
			e := &rp.ev[i]
			if e.Type != runtimev1.EventContainerReady || e.Container != c.name {
				continue
			}
			in := c.instanceAt(e)
			if in == nil || !before(in.started, e) {
				continue
			}
			f := func(id, format string, args ...any) {
				out = append(out, Finding{Rule: id, Seq: e.Seq, Container: c.name, Message: fmt.Sprintf("instance %d reported Started and Ready, ", in.n+1) + fmt.Sprintf(format, args...)})
			}
			if l := c.spec.Lifecycle; l != nil && l.PostStart != nil && !in.startedBefore(e) {
				f(spec.DEP007, "but its postStart hook had not succeeded")
			}
			n := slicesIndex(c.startedInsts(), in)
			if startupOK && !anySuccessBefore(startup[n], e) {
				f(spec.DEP007, "but its startup probe's command had reported no success")
			}
			if readinessOK {
				th := int(c.spec.ReadinessProbe.SuccessThreshold)
				if th < 1 {
					th = 1
				}
				if got := successesInARow(readiness[n], e); got < th {
					f(spec.DEP008, "but its readiness probe's command had reported at most %d successes in a row, successThreshold is %d", got, th)
				}
			}
		}
	}
	return out
}

// probeReports are a container's reports of a probe kind per started instance, and whether they
// report every attempt's result for the instances they line up with: the probe's command is the
// probe's check (`podspec-probe check ...`), not told to keep quiet.
func (rp *replay) probeReports(c *container, kind string, p *v1alpha1.Probe) (map[int][]probe.Event, bool) {
	if p == nil || quiet(p) || len(p.Exec.Command) < 2 || p.Exec.Command[1] != "check" || rp.fallbacks(c) {
		return nil, false
	}
	return rp.checkRuns(c, kind)
}

// slicesIndex is the index of in among the container's started instances.
func slicesIndex(ins []*instance, in *instance) int {
	for i, x := range ins {
		if x == in {
			return i
		}
	}
	return -1
}

// anySuccessBefore says some report arrived before the event with a success.
func anySuccessBefore(reps []probe.Event, e *runtimev1.Event) bool {
	for _, r := range reps {
		if r.Received.Before(e.Time) && r.Result == "success" {
			return true
		}
	}
	return false
}

// successesInARow is the longest run of successes among the reports that arrived before the
// event.
func successesInARow(reps []probe.Event, e *runtimev1.Event) int {
	most, n := 0, 0
	for _, r := range reps {
		if !r.Received.Before(e.Time) {
			break
		}
		if r.Result == "success" {
			n++
		} else {
			n = 0
		}
		most = max(most, n)
	}
	return most
}

// checkReadyInFinalStatus: in the final status of a terminal pod no container runs, so none is
// Ready (DEP-009 without a readinessProbe: Ready exactly while Started and running; DEP-008 with
// one: only while Started, and a container that ran is not Started once it ended).
func checkReadyInFinalStatus(rp *replay) []Finding {
	if rp.final == nil || (rp.final.Phase != v1alpha1.PodSucceeded && rp.final.Phase != v1alpha1.PodFailed) {
		return nil
	}
	var out []Finding
	for _, list := range [][]v1alpha1.ContainerStatus{rp.final.InitContainerStatuses, rp.final.ContainerStatuses} {
		for _, cs := range list {
			c := rp.byName[cs.Name]
			if !cs.Ready || c == nil || c.spec == nil {
				continue
			}
			id := spec.DEP009
			if c.spec.ReadinessProbe != nil {
				id = spec.DEP008
			}
			out = append(out, Finding{Rule: id, Container: c.name, Message: fmt.Sprintf("the final status of the %s pod reports it ready, but it no longer runs", rp.final.Phase)})
		}
	}
	return out
}

// checkCompleted judges the condition Completed against its dependency's exits (DEP-010): a
// dependent does not start on an exit 0 of an instance the runtime had killed for a failed probe
// or postStart hook (a failure), and is not failed with DependencyFailed at an exit of its
// dependency that was not terminal (the dependency ran again after it) unless another of its
// dependencies ended terminally first without its condition.
func checkCompleted(rp *replay) []Finding {
	var out []Finding
	for _, m := range rp.kind(kindMain) {
		for _, d := range m.spec.DependsOn {
			dep := rp.byName[d.Name]
			if dep == nil || d.Condition != v1alpha1.ConditionCompleted {
				continue
			}
			if s := m.firstStart(); s != nil && dep.exitedZeroBefore(s) && !dep.cleanZeroBefore(s) {
				out = append(out, Finding{Rule: spec.DEP010, Seq: s.Seq, Container: m.name, Message: fmt.Sprintf(
					"started after its dependency %s exited 0, but only after the runtime killed that instance for a failed probe or postStart hook: a failure, not Completed", dep.name)})
			}
			if df := m.depFailed; df != nil && m.firstStart() == nil && !rp.dependencyFailureJustified(m, df) {
				for _, in := range dep.startedInsts() {
					if in.started.Seq > df.Seq {
						out = append(out, Finding{Rule: spec.DEP010, Seq: df.Seq, Container: m.name, Message: fmt.Sprintf(
							"failed with DependencyFailed, but its dependency %s had not exited terminally: it started again (#%d), and Completed holds only once it exits terminally", dep.name, in.started.Seq)})
						break
					}
				}
			}
		}
	}
	return out
}

// cleanZeroBefore says an instance of the container exited 0 before event e without the runtime
// having killed it for its health.
func (c *container) cleanZeroBefore(e *runtimev1.Event) bool {
	for _, in := range c.insts {
		if x := in.exited; before(x, e) && x.ExitCode != nil && *x.ExitCode == 0 && !in.killedForHealth() {
			return true
		}
	}
	return false
}

// dependencyFailureJustified says some dependency of m ended terminally (or failed for its own
// dependency) no later than m's DependencyFailed, before its condition held.
func (rp *replay) dependencyFailureJustified(m *container, df *runtimev1.Event) bool {
	for _, d := range m.spec.DependsOn {
		dep := rp.byName[d.Name]
		if dep == nil {
			continue
		}
		end := rp.terminalBeforeStop(dep)
		if end == nil || end.Seq > df.Seq {
			continue
		}
		if held, known := rp.heldBefore(dep, d.Condition, end); !held || !known {
			return true
		}
	}
	return false
}

// checkRestartNotGated judges the restarts of dependents (DEP-011): a restart the restart policy
// requires has come by the time the stop sequence begins, if that is more than maxSeconds of
// back-off plus the reaction tolerance after the exit it follows (RST-008's bound at its
// longest), even while a dependency's condition does not hold; a missing restart is judged only
// then (otherwise it is RST-003's alone). A restart that came late is not judged: on a loaded
// machine a restart may come later than the bound, and only its absence at the stop decides.
func checkRestartNotGated(rp *replay) []Finding {
	var out []Finding
	bound := time.Duration(*rp.pod.Spec.RestartBackoff.MaxSeconds*float64(time.Second)) + rp.opts.Reaction
	for _, m := range rp.kind(kindMain) {
		st := m.startedInsts()
		for i, in := range st {
			if in.exited == nil || !before(in.exited, rp.terminating) {
				continue
			}
			if _, must := rp.restartWanted(in); !must {
				continue
			}
			due := in.exited.Time.Add(bound)
			if i+1 < len(st) && before(st[i+1].started, rp.terminating) {
				continue // it came before the stop sequence
			}
			if rp.terminating == nil || !rp.terminating.Time.After(due) {
				continue // the pod's end came first, or the history ends before the bound
			}
			dep, cond := rp.unmetDependency(m, due)
			if dep == "" {
				continue
			}
			out = append(out, Finding{Rule: spec.DEP011, Seq: in.exited.Seq, Container: m.name, Message: fmt.Sprintf(
				"the restart after instance %d's exit, due within %v (back-off at most maxSeconds, plus the reaction tolerance), had not come when the stop sequence began %v after the exit, while its dependency %s was not %s: a restart does not wait for its dependencies",
				i+1, bound, rp.terminating.Time.Sub(in.exited.Time).Round(time.Millisecond), dep, cond)})
		}
	}
	return out
}

// unmetDependency is a dependency of m whose condition did not hold at t (Ready: its last
// ContainerReady was followed by its readiness probe's failure or its exit; Started: no instance
// of it ran then), and the condition; "" when every condition held or the model cannot tell.
func (rp *replay) unmetDependency(m *container, t time.Time) (string, v1alpha1.DependencyCondition) {
	for _, d := range m.spec.DependsOn {
		dep := rp.byName[d.Name]
		if dep == nil {
			continue
		}
		switch d.Condition {
		case v1alpha1.ConditionReady:
			if !rp.readyAt(dep, t) {
				return dep.name, d.Condition
			}
		case v1alpha1.ConditionCompleted:
			// Completed, once held, holds: a dependent past its first start never waits for it.
		default:
			running := false
			for _, in := range dep.startedInsts() {
				running = running || (!in.started.Time.After(t) && (in.exited == nil || in.exited.Time.After(t)))
			}
			if !running {
				return dep.name, d.Condition
			}
		}
	}
	return "", ""
}

// readyAt says the container was Ready at t by its events: its last ContainerReady, readiness
// ProbeFailed or ContainerExited up to t is a ContainerReady.
func (rp *replay) readyAt(c *container, t time.Time) bool {
	ready := false
	for i := range rp.ev {
		e := &rp.ev[i]
		if e.Container != c.name || e.Time.After(t) {
			continue
		}
		switch {
		case e.Type == runtimev1.EventContainerReady:
			ready = true
		case e.Type == runtimev1.EventContainerExited, e.Type == runtimev1.EventProbeFailed && e.Probe == runtimev1.ProbeReadiness:
			ready = false
		}
	}
	return ready
}
