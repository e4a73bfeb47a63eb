package model

import (
	"cmp"
	"fmt"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
)

// Rules of the start: init containers one at a time, sidecars gating the next entry, main
// containers after the init phase and after their dependencies, instances one at a time, and no
// main container started once the stop sequence began.

func hasInit(p *v1alpha1.Pod) bool { return len(p.Spec.InitContainers) > 0 }

func hasRegularInit(p *v1alpha1.Pod) bool {
	for i := range p.Spec.InitContainers {
		if rp := p.Spec.InitContainers[i].RestartPolicy; rp == nil || *rp != v1alpha1.RestartPolicyAlways {
			return true
		}
	}
	return false
}

// firstStart is the container's first ContainerStarted, or nil.
func (c *container) firstStart() *runtimev1.Event {
	if s := c.startedInsts(); len(s) > 0 {
		return s[0].started
	}
	return nil
}

// exitedZeroBefore says whether an instance of the container exited 0 before event e.
func (c *container) exitedZeroBefore(e *runtimev1.Event) bool {
	for _, in := range c.insts {
		if x := in.exited; before(x, e) && x.ExitCode != nil && *x.ExitCode == 0 {
			return true
		}
	}
	return false
}

// startedBefore says whether the container was Started (running, postStart succeeded) before
// event e. A startup probe's success has no event of the contract, so for a container with a
// startupProbe only the parts the history shows are required.
func (c *container) startedBefore(e *runtimev1.Event) bool {
	for _, in := range c.insts {
		if in.startedBefore(e) {
			return true
		}
	}
	return false
}

// startedBefore says whether the instance was Started before event e (see the container's).
func (in *instance) startedBefore(e *runtimev1.Event) bool {
	if !before(in.started, e) {
		return false
	}
	if s := in.c.spec; s == nil || s.Lifecycle == nil || s.Lifecycle.PostStart == nil {
		return true
	}
	for _, h := range in.hooks {
		if h.Type == runtimev1.EventHookFinished && h.Hook == runtimev1.HookPostStart && h.Result == runtimev1.ResultSucceeded && before(h, e) {
			return true
		}
	}
	return false
}

// readyBefore says whether the container was recorded Ready (ContainerReady) before event e.
func (rp *replay) readyBefore(name string, e *runtimev1.Event) bool {
	return before(rp.firstEvent(runtimev1.EventContainerReady, name), e)
}

// initGate checks that an init entry was done (HB-001: exited 0; HB-002: Started) before start.
func initGate(c *container, start *runtimev1.Event, id, what string) []Finding {
	switch c.kind {
	case kindInit:
		if !c.exitedZeroBefore(start) {
			return []Finding{{Rule: cmp.Or(id, spec.HB001), Seq: start.Seq, Container: start.Container,
				Message: fmt.Sprintf("%s started before init container %s had exited 0", what, c.name)}}
		}
	case kindSidecar:
		if !c.startedBefore(start) {
			return []Finding{{Rule: cmp.Or(id, spec.HB002), Seq: start.Seq, Container: start.Container,
				Message: fmt.Sprintf("%s started before sidecar %s was Started", what, c.name)}}
		}
	}
	return nil
}

func checkInitOrder(rp *replay) []Finding {
	var out []Finding
	entries := rp.order[:len(rp.pod.Spec.InitContainers)] // initContainers, sidecars included, in manifest order
	for i := 0; i+1 < len(entries); i++ {
		next := entries[i+1]
		if s := next.firstStart(); s != nil {
			out = append(out, initGate(entries[i], s, "", "init entry "+next.name)...)
		}
	}
	return out
}

func checkMainsAfterInit(rp *replay) []Finding {
	var out []Finding
	for _, m := range rp.kind(kindMain) {
		s := m.firstStart()
		if s == nil {
			continue
		}
		for _, c := range append(rp.kind(kindInit), rp.kind(kindSidecar)...) {
			out = append(out, initGate(c, s, spec.HB003, "main container "+m.name)...)
		}
	}
	return out
}

func checkDependencies(rp *replay) []Finding {
	var out []Finding
	for _, m := range rp.kind(kindMain) {
		s := m.firstStart()
		if s == nil {
			continue
		}
		for _, d := range m.spec.DependsOn {
			dep := rp.byName[d.Name]
			if dep == nil {
				continue
			}
			held := false
			switch d.Condition {
			case v1alpha1.ConditionReady:
				held = rp.readyBefore(dep.name, s)
			case v1alpha1.ConditionCompleted:
				held = dep.exitedZeroBefore(s)
			default:
				held = dep.startedBefore(s)
			}
			if !held {
				out = append(out, Finding{Rule: spec.HB004, Seq: s.Seq, Container: m.name,
					Message: fmt.Sprintf("started before its dependency %s was %s", dep.name, d.Condition)})
			}
		}
	}
	return out
}

func checkInstancesOneAtATime(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		st := c.startedInsts()
		for i := 1; i < len(st); i++ {
			if !before(st[i-1].exited, st[i].started) {
				out = append(out, Finding{Rule: spec.HB008, Seq: st[i].started.Seq, Container: c.name,
					Message: fmt.Sprintf("instance %d started before instance %d had exited", i+1, i)})
			}
		}
	}
	return out
}

func checkInitNotRerun(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.kind(kindInit) {
		for _, in := range c.startedInsts() {
			if in.n > 0 && c.exitedZeroBefore(in.started) {
				out = append(out, Finding{Rule: spec.INIT001, Seq: in.started.Seq, Container: c.name,
					Message: "started again after it had exited 0"})
			}
		}
	}
	return out
}

// initTerminalFailure is the exit of a regular init container that fails terminally before the
// stop sequence began, or nil: a failure under Never (OnFailure restarts it).
func (rp *replay) initTerminalFailure() *instance {
	for _, c := range rp.kind(kindInit) {
		if c.policy != v1alpha1.RestartPolicyNever {
			continue
		}
		for _, in := range c.insts {
			if in.exited == nil || !before(in.exited, rp.terminating) {
				continue
			}
			if fail, ok := rp.failure(in); fail && !ok {
				return in
			}
		}
	}
	return nil
}

func checkInitFailureEndsPod(rp *replay) []Finding {
	in := rp.initTerminalFailure()
	if in == nil {
		return nil
	}
	var out []Finding
	for _, m := range rp.kind(kindMain) {
		if s := m.firstStart(); s != nil && s.Seq > in.exited.Seq {
			out = append(out, Finding{Rule: spec.INIT003, Seq: s.Seq, Container: m.name,
				Message: fmt.Sprintf("started after init container %s failed terminally", in.c.name)})
		}
	}
	if rp.terminating == nil {
		out = append(out, Finding{Rule: spec.INIT003, Seq: in.exited.Seq, Container: in.c.name,
			Message: "failed terminally, but the stop sequence never began (no PodTerminating)"})
	}
	return out
}

func checkNoMainStartWhileTerminating(rp *replay) []Finding {
	if rp.terminating == nil {
		return nil
	}
	var out []Finding
	for _, m := range rp.kind(kindMain) {
		for _, in := range m.insts {
			// A start that was under way (created) when the sequence began is not judged: the
			// runtime may have been starting it already.
			first := in.created
			if first == nil {
				first = in.started
			}
			if first != nil && first.Seq > rp.terminating.Seq {
				out = append(out, Finding{Rule: spec.MAIN002, Seq: first.Seq, Container: m.name,
					Message: fmt.Sprintf("instance %d was created or started after PodTerminating (#%d)", in.n+1, rp.terminating.Seq)})
			}
		}
	}
	return out
}

func checkSkippedMains(rp *replay) []Finding {
	if rp.terminating == nil || rp.final == nil || rp.final.Reason == "" {
		return nil
	}
	var out []Finding
	for _, m := range rp.kind(kindMain) {
		if len(m.insts) > 0 || m.depFailed != nil {
			continue // it ran, or failed for its dependency (DEP-012) whichever came first
		}
		cs := rp.status(m.name)
		if cs == nil {
			continue
		}
		if sk := cs.State.Skipped; sk == nil || sk.Reason != rp.final.Reason {
			got := "no skipped state"
			if sk != nil {
				got = "skipped reason " + sk.Reason
			}
			out = append(out, Finding{Rule: spec.MAIN003, Container: m.name,
				Message: fmt.Sprintf("never started before the stop sequence began; its final status has %s, want skipped reason %s", got, rp.final.Reason)})
		}
	}
	return out
}

// terminalBeforeStop is the container's first end, before the stop sequence, that its restart
// policy does not restart (a DependencyFailed of a main container included), or nil.
func (rp *replay) terminalBeforeStop(c *container) *runtimev1.Event {
	if c.depFailed != nil && c.firstStart() == nil && before(c.depFailed, rp.terminating) {
		return c.depFailed
	}
	for _, in := range c.insts {
		if in.exited == nil || !before(in.exited, rp.terminating) {
			continue
		}
		if can, _ := rp.restartWanted(in); !can {
			return in.exited
		}
	}
	return nil
}

// heldBefore says whether a dependency's condition held before event e, and whether the model
// can tell (a startup probe's success has no event).
func (rp *replay) heldBefore(dep *container, cond v1alpha1.DependencyCondition, e *runtimev1.Event) (held, known bool) {
	switch cond {
	case v1alpha1.ConditionReady:
		return rp.readyBefore(dep.name, e), true
	case v1alpha1.ConditionCompleted:
		// The end itself may be the completion: judged up to and with e.
		for _, in := range dep.insts {
			if x := in.exited; x != nil && x.Seq <= e.Seq && x.ExitCode != nil && *x.ExitCode == 0 && !in.killedForHealth() {
				return true, true
			}
		}
		return false, true
	}
	return dep.startedBefore(e), dep.spec.StartupProbe == nil
}

func checkDependencyFailed(rp *replay) []Finding {
	if rp.finished == nil {
		return nil
	}
	var out []Finding
	for _, m := range rp.kind(kindMain) {
		for _, d := range m.spec.DependsOn {
			dep := rp.byName[d.Name]
			if dep == nil {
				continue
			}
			end := rp.terminalBeforeStop(dep)
			if end == nil {
				continue
			}
			if held, known := rp.heldBefore(dep, d.Condition, end); held || !known {
				continue
			}
			if s := m.firstStart(); s != nil && s.Seq < end.Seq {
				continue // it had started before (HB-004 judges its start)
			}
			if m.depFailed == nil && !rp.skipped(m) {
				id := spec.DEP012
				if dep.depFailed != nil {
					id = spec.DEP013 // the dependency itself failed for its dependency
				}
				out = append(out, Finding{Rule: id, Seq: end.Seq, Container: m.name,
					Message: fmt.Sprintf("its dependency %s ended terminally before it was %s, but it was not failed with DependencyFailed", dep.name, d.Condition)})
			}
		}
		if cs := rp.status(m.name); m.depFailed != nil && cs != nil && m.firstStart() == nil {
			if t := cs.State.Terminated; t == nil || t.Reason != v1alpha1.ReasonDependencyFailed || t.ExitCode != nil || t.Signal != nil {
				out = append(out, Finding{Rule: spec.DEP012, Seq: m.depFailed.Seq, Container: m.name,
					Message: "failed for its dependency, but its final state is not terminated with reason DependencyFailed and neither exitCode nor signal"})
			}
		}
	}
	return out
}

// skipped says whether the runtime recorded the container as never to run (ContainerSkipped).
func (rp *replay) skipped(c *container) bool {
	return rp.firstEvent(runtimev1.EventContainerSkipped, c.name) != nil
}
