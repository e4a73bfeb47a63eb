package model

import (
	"fmt"

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
// report every attempt's result for the instances they line up with.
func (rp *replay) probeReports(c *container, kind string, p *v1alpha1.Probe) (map[int][]probe.Event, bool) {
	if p == nil || quiet(p) || rp.fallbacks(c) {
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
