package model

import (
	"fmt"
	"reflect"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation"
)

// Rules of in-place updates (docs/spec/update.md): which updates a runtime accepts (UPD-004), the
// generations it counts (UPD-005) and reports as taken effect (UPD-006), which instances an
// update replaces and how (UPD-007, UPD-011), which it leaves running (UPD-009, UPD-010) and
// which it must not bring back (UPD-013). They judge the updates the harness made (History.
// Updates): an update's effect is decided from the manifests before and after it
// (validation.MutableChanges, the validator's own reading of the update table).

// Update is one `update` the harness ran on the pod: when it was issued and when the command
// returned (the harness's clock, the events' clock), the manifest it submitted and whether the
// runtime accepted it.
type Update struct {
	Issued, Returned time.Time
	Pod              *v1alpha1.Pod
	Accepted         bool
}

// applied is an accepted update as the model reads it: the generation it makes, the effect on
// each container and the first UpdateApplied that reports it taken effect (nil if none).
type applied struct {
	u       *Update
	gen     int64
	changed bool // the manifest changed (UPD-005)
	prev    *v1alpha1.Pod
	next    *v1alpha1.Pod
	effect  map[string]validation.ContainerChange
	done    *runtimev1.Event // the first UpdateApplied of generation gen or later
	until   *runtimev1.Event // the first PodTerminating, if it came before done or there is no done
}

// appliedUpdates are the accepted updates in issue order, each with the generation it makes
// (ID-008: a pod starts at generation 1). newReplay reads them once into rp.accepted.
func (rp *replay) appliedUpdates() []*applied {
	var out []*applied
	prev, gen := rp.pod, int64(1)
	for i := range rp.updates {
		u := &rp.updates[i]
		if !u.Accepted || u.Pod == nil {
			continue
		}
		next := defaulted(u.Pod)
		a := &applied{u: u, prev: prev, next: next, effect: map[string]validation.ContainerChange{}}
		a.changed = !reflect.DeepEqual(prev.Metadata.Labels, next.Metadata.Labels) ||
			!reflect.DeepEqual(prev.Metadata.Annotations, next.Metadata.Annotations) || !reflect.DeepEqual(prev.Spec, next.Spec)
		if a.changed {
			gen++
		}
		a.gen = gen
		for _, cc := range validation.MutableChanges(next, prev).Containers {
			a.effect[cc.Name] = cc
		}
		for i := range rp.ev {
			if e := &rp.ev[i]; e.Type == runtimev1.EventUpdateApplied && e.Generation >= gen && a.changed {
				a.done = e
				break
			}
		}
		if rp.terminating != nil && (a.done == nil || rp.terminating.Seq < a.done.Seq) {
			a.until = rp.terminating
		}
		out = append(out, a)
		prev = next
	}
	return out
}

// runningAt is the container's instance that ran across the update (started before it was
// issued, not ended before it returned), and whether that is the only reading: an instance that
// ended while the command ran may have ended before or after the runtime took the update.
func (c *container) runningAt(u *Update) (in *instance, sure bool) {
	for _, x := range c.insts {
		if x.started == nil || !x.started.Time.Before(u.Issued) {
			continue
		}
		switch {
		case x.exited == nil || x.exited.Time.After(u.Returned):
			return x, true
		case x.exited.Time.After(u.Issued):
			return x, false
		}
	}
	return nil, true
}

// runtimeSignalsAfter are the signals the runtime sent the instance from t (an update's issue)
// up to end (nil: no end), leaving out those that follow a kill for its health.
func (in *instance) runtimeSignalsAfter(t time.Time, end *runtimev1.Event) []*runtimev1.Event {
	kill := in.healthKill()
	var out []*runtimev1.Event
	for _, s := range in.signals {
		if s.Time.Before(t) || (end != nil && s.Seq > end.Seq) || (kill != nil && s.Seq > kill.Seq) || s.Signal == nil {
			continue
		}
		out = append(out, s)
	}
	return out
}

// UPD-004: an update issued once the pod was terminating or terminal is refused.
func checkUpdateRefusedInStop(rp *replay) []Finding {
	if rp.terminating == nil {
		return nil
	}
	var out []Finding
	for i := range rp.updates {
		if u := &rp.updates[i]; u.Accepted && u.Issued.After(rp.terminating.Time) {
			out = append(out, Finding{Rule: spec.UPD004, Seq: rp.terminating.Seq,
				Message: fmt.Sprintf("an update issued %v after PodTerminating was accepted", u.Issued.Sub(rp.terminating.Time).Round(time.Millisecond))})
		}
	}
	return out
}

// UPD-005: generation counts the accepted updates that changed the manifest, so no UpdateApplied
// and no final observedGeneration names a generation beyond them.
func checkGenerations(rp *replay) []Finding {
	top := int64(1)
	for _, a := range rp.accepted {
		top = a.gen
	}
	var out []Finding
	for i := range rp.ev {
		if e := &rp.ev[i]; e.Type == runtimev1.EventUpdateApplied && e.Generation > top {
			out = append(out, Finding{Rule: spec.UPD005, Seq: e.Seq,
				Message: fmt.Sprintf("UpdateApplied generation %d, but the accepted updates that changed the manifest make generation %d at most", e.Generation, top)})
		}
	}
	if rp.final != nil && rp.final.ObservedGeneration > top {
		out = append(out, Finding{Rule: spec.UPD005,
			Message: fmt.Sprintf("final observedGeneration %d, but the accepted updates that changed the manifest make generation %d at most", rp.final.ObservedGeneration, top)})
	}
	return out
}

// UPD-006, UPD-007, UPD-011: a main container or sidecar an update restarts, running when the
// update came, gets its stop signal (not SIGKILL first, SIGKILL not before the grace period)
// and a new instance, and UpdateApplied comes only once the new instance started. Judged
// until the stop sequence begins.
func checkUpdateRestarts(rp *replay) []Finding {
	var out []Finding
	for _, a := range rp.accepted {
		for name, cc := range a.effect {
			c := rp.byName[name]
			if c == nil || cc.Effect != validation.EffectRestart || (c.kind != kindMain && c.kind != kindSidecar) {
				continue
			}
			old, sure := c.runningAt(a.u)
			if old == nil || !sure {
				continue
			}
			out = append(out, rp.replacement(a, c, cc, old)...)
		}
	}
	return out
}

// replacement judges how an update replaced one running instance.
func (rp *replay) replacement(a *applied, c *container, cc validation.ContainerChange, old *instance) []Finding {
	var out []Finding
	id := spec.UPD007
	if !restartsForDefinition(cc) {
		id = spec.UPD011
	}
	sigs := old.runtimeSignalsAfter(a.u.Issued, rp.terminating)
	if len(sigs) > 0 && old.endedBefore(sigs[0]) {
		return nil // it ended on its own as the update came
	}
	if len(sigs) > 0 {
		first := sigs[0]
		if first.Signal.Name == "SIGKILL" && c.stopSignal() != "SIGKILL" && minGrace(a) > 0 {
			out = append(out, Finding{Rule: id, Seq: first.Seq, Container: c.name,
				Message: "the update replaced the instance with SIGKILL, not its stop signal " + c.stopSignal() + " first"})
		}
		for _, s := range sigs[1:] {
			grace := time.Duration(minGrace(a)) * time.Second
			if s.Signal.Name == "SIGKILL" && first.Signal.Name != "SIGKILL" && s.Time.Sub(first.Time) < grace-rp.opts.EarlyMargin {
				out = append(out, Finding{Rule: id, Seq: s.Seq, Container: c.name,
					Message: fmt.Sprintf("SIGKILL %v after the update's stop signal, before the grace period %v", s.Time.Sub(first.Time).Round(time.Millisecond), grace)})
			}
		}
	}
	if a.done == nil || a.until != nil {
		return out // not reported taken effect before the stop sequence: nothing more to judge
	}
	switch {
	case len(sigs) == 0 && (old.exited == nil || old.exited.Seq > a.done.Seq) && !old.endedBefore(a.done):
		out = append(out, Finding{Rule: id, Seq: a.done.Seq, Container: c.name,
			Message: fmt.Sprintf("UpdateApplied generation %d, but the instance the update restarts (%s) was never sent its stop signal", a.done.Generation, describeFields(cc))})
	case old.exited == nil || old.exited.Seq > a.done.Seq:
		out = append(out, Finding{Rule: spec.UPD006, Seq: a.done.Seq, Container: c.name,
			Message: fmt.Sprintf("UpdateApplied generation %d while the instance the update replaces still ran", a.done.Generation)})
	default:
		var between, after bool
		for _, in := range c.startedInsts() {
			if in.started.Seq > old.exited.Seq {
				between = between || in.started.Seq < a.done.Seq
				after = after || in.started.Seq > a.done.Seq
			}
		}
		if !between && after {
			out = append(out, Finding{Rule: spec.UPD006, Seq: a.done.Seq, Container: c.name,
				Message: fmt.Sprintf("UpdateApplied generation %d before the new instance the update starts had started", a.done.Generation)})
		}
	}
	return out
}

// restartsForDefinition says the change restarts the container for its image, command, args or
// env (UPD-007), not only for a resource whose resizePolicy is RestartContainer (UPD-011).
func restartsForDefinition(cc validation.ContainerChange) bool {
	for _, f := range cc.Fields {
		if f != "resources" {
			return true
		}
	}
	return false
}

func describeFields(cc validation.ContainerChange) string {
	return fmt.Sprintf("changed %v", cc.Fields)
}

// minGrace is the smaller of the grace periods before and after the update, in seconds: UPD-007
// bounds SIGKILL by terminationGracePeriodSeconds and the model accepts either reading.
func minGrace(a *applied) int64 {
	return min(*a.prev.Spec.TerminationGracePeriodSeconds, *a.next.Spec.TerminationGracePeriodSeconds)
}

// UPD-009, UPD-010: an update leaves running every main container and sidecar it does not
// restart: the instance that ran across it gets no stop signal or SIGKILL from the runtime until
// the update has taken effect (UpdateApplied), unless a probe failed first or a notifier
// delivered a signal meanwhile. Judged until the next update or the stop sequence.
func checkUpdateLeavesRunning(rp *replay) []Finding {
	var out []Finding
	ups := rp.accepted
	for k, a := range ups {
		if a.done == nil || a.until != nil || (k+1 < len(ups) && ups[k+1].u.Issued.Before(a.done.Time)) {
			continue
		}
		for _, c := range append(rp.kind(kindMain), rp.kind(kindSidecar)...) {
			cc, changed := a.effect[c.name]
			id := spec.UPD009
			switch {
			case changed && cc.Effect == validation.EffectResize:
				id = spec.UPD010
			case changed:
				continue
			}
			old, sure := c.runningAt(a.u)
			if old == nil || !sure || rp.delivering(c, a.u.Issued, a.done) {
				continue
			}
			for _, s := range old.runtimeSignalsAfter(a.u.Issued, a.done) {
				if (s.Signal.Name == "SIGKILL" || s.Signal.Name == c.stopSignal()) && !old.endedBefore(s) {
					out = append(out, Finding{Rule: id, Seq: s.Seq, Container: c.name,
						Message: fmt.Sprintf("sent %s while the update of generation %d took effect, which does not restart it (%s)", s.Signal.Name, a.gen, describeEffect(changed, cc))})
					break
				}
			}
		}
	}
	return out
}

func describeEffect(changed bool, cc validation.ContainerChange) string {
	if !changed {
		return "unchanged"
	}
	return fmt.Sprintf("changed %v, resized in place", cc.Fields)
}

// delivering says a notifier delivery to the container began between t and the event end.
func (rp *replay) delivering(c *container, t time.Time, end *runtimev1.Event) bool {
	for i := range rp.ev {
		e := &rp.ev[i]
		if e.Type == runtimev1.EventNotifierStarted && e.Container == c.name && !e.Time.Before(t) && e.Seq < end.Seq {
			return true
		}
	}
	return false
}

// UPD-013: an update does not start again a main container that had exited terminally, nor a
// regular init container that had started, before it was issued.
func checkUpdateRevivesNothing(rp *replay) []Finding {
	var out []Finding
	for _, a := range rp.accepted {
		if rp.terminating != nil && rp.terminating.Time.Before(a.u.Issued) {
			continue // UPD-004's
		}
		for name := range a.effect {
			c := rp.byName[name]
			if c == nil || (c.kind != kindMain && c.kind != kindInit) {
				continue
			}
			last := c.lastEndedBefore(a.u.Issued)
			if last == nil {
				continue
			}
			if can, _ := rp.restartWanted(last); can && !(c.kind == kindInit && last.exited.ExitCode != nil && *last.exited.ExitCode == 0) {
				continue // its policy may restart it
			}
			for _, in := range c.startedInsts() {
				if in.started.Time.After(a.u.Issued) {
					out = append(out, Finding{Rule: spec.UPD013, Seq: in.started.Seq, Container: c.name,
						Message: fmt.Sprintf("started again after an update, although it had ended terminally before the update (%s)", describeEnd(last))})
					break
				}
			}
		}
	}
	return out
}

// lastEndedBefore is the container's last instance when every instance started before t had
// ended before it, nil otherwise (one still ran, or none had started).
func (c *container) lastEndedBefore(t time.Time) *instance {
	var last *instance
	for _, in := range c.insts {
		if in.earliest() == nil || !in.earliest().Time.Before(t) {
			continue
		}
		if in.exited == nil || !in.exited.Time.Before(t) {
			return nil
		}
		last = in
	}
	if last == nil || last.started == nil {
		return nil
	}
	return last
}

// UPD-012, UPD-007: an instance created once an update had been accepted runs the definition
// that update made, as far as its workload reports it: the value of every env variable the
// updates changed. Its creation began no sooner than Reaction before its first event; an
// instance that may have begun before the update returned is not judged. The finding names
// UPD-007 for the new instance of a container the update restarted, UPD-012 for a container
// that waited to start or to restart.
func checkUpdatedDefinition(rp *replay) []Finding {
	ups := rp.accepted
	if len(ups) == 0 {
		return nil
	}
	var out []Finding
	for _, c := range rp.order {
		if c.spec == nil {
			continue
		}
		for _, in := range c.startedInsts() {
			env := in.reportedEnv()
			if env == nil {
				continue
			}
			begun := in.earliest().Time.Add(-rp.opts.Reaction)
			var force *applied
			ambiguous := false
			for _, a := range ups {
				switch {
				case a.u.Returned.Before(begun):
					force = a
				case a.u.Issued.Before(in.earliest().Time):
					ambiguous = true
				}
			}
			if force == nil || ambiguous {
				continue
			}
			want := containerEnv(force.next, c.name)
			for name, values := range changedEnv(rp.pod, ups, c.name) {
				got, ok := env[name]
				w, has := want[name]
				if !values || !ok || !has || got == w {
					continue
				}
				id := spec.UPD012
				if old, sure := c.runningAt(force.u); old != nil && sure {
					id = spec.UPD007
				}
				out = append(out, Finding{Rule: id, Seq: in.started.Seq, Container: c.name,
					Message: fmt.Sprintf("an instance created after the update of generation %d took it reports %s=%q, the update set %q", force.gen, name, got, w)})
				break
			}
		}
	}
	return out
}

// reportedEnv is the environment the instance's workload reported first, nil if none.
func (in *instance) reportedEnv() map[string]string {
	for _, p := range in.work {
		if p.Type == probe.TypeReport && p.Report != nil && p.Report.Env != nil {
			return p.Report.Env
		}
	}
	return nil
}

// containerEnv is a container's env of a manifest, by name (the last of a repeated name).
func containerEnv(p *v1alpha1.Pod, name string) map[string]string {
	out := map[string]string{}
	for _, list := range [][]v1alpha1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range list {
			if list[i].Name == name {
				for _, e := range list[i].Env {
					out[e.Name] = e.Value
				}
			}
		}
	}
	return out
}

// changedEnv names the env variables of a container whose value some accepted update changed.
func changedEnv(first *v1alpha1.Pod, ups []*applied, name string) map[string]bool {
	out := map[string]bool{}
	prev := containerEnv(first, name)
	for _, a := range ups {
		next := containerEnv(a.next, name)
		for k, v := range next {
			if pv, ok := prev[k]; !ok || pv != v {
				out[k] = true
			}
		}
		prev = next
	}
	return out
}

// replaced says an update replaced the instance: it ran across an accepted update that restarts
// its container, and the runtime signalled it after that update (before the stop sequence)
// before its workload reported an end of its own.
func (rp *replay) replaced(in *instance) bool {
	for _, a := range rp.accepted {
		if cc, ok := a.effect[in.c.name]; !ok || cc.Effect != validation.EffectRestart {
			continue
		}
		if old, sure := in.c.runningAt(a.u); old != in || !sure {
			continue
		}
		if sigs := in.runtimeSignalsAfter(a.u.Issued, a.until); len(sigs) > 0 && !in.endedBefore(sigs[0]) {
			return true
		}
	}
	return false
}

// UPD-008: the end of an instance an update replaced does not decide the pod result: a pod
// decided by a container is decided by an end of it that no update replaced, with that end's
// exit code.
func checkReplacedNotCounted(rp *replay) []Finding {
	var out []Finding
	type decision struct {
		seq       int64
		phase     v1alpha1.PodPhase
		decidedBy string
		code      *int32
	}
	var ds []decision
	if rp.finished != nil {
		ds = append(ds, decision{rp.finished.Seq, rp.finished.Phase, rp.finished.DecidedBy, rp.finished.ExitCode})
	}
	if rp.final != nil {
		ds = append(ds, decision{0, rp.final.Phase, rp.final.DecidedBy, rp.final.ExitCode})
	}
	for _, d := range ds {
		c := rp.byName[d.decidedBy]
		if c == nil || d.code == nil {
			continue
		}
		var byReplaced, byOther bool
		for _, in := range c.insts {
			if in.exited == nil || endCode(terminal{in: in}) != *d.code {
				continue
			}
			if rp.replaced(in) {
				byReplaced = true
			} else {
				byOther = true
			}
		}
		if byReplaced && !byOther {
			where := "the final status"
			if d.seq != 0 {
				where = "PodFinished"
			}
			out = append(out, Finding{Rule: spec.UPD008, Seq: d.seq, Container: c.name,
				Message: fmt.Sprintf("%s is %s, decided by %s with exit code %d: only the end of an instance an update replaced gives that code", where, d.phase, c.name, *d.code)})
		}
	}
	return out
}

// UPD-014: a changed activeDeadlineSeconds takes effect at once, counted from status.startedAt:
// the deadline's stop request comes no sooner than startedAt + the smallest deadline an update
// issued before it may have set − EarlyMargin, and by the later of startedAt + the last update's
// deadline and that update's return, + Reaction (unless the pod was terminating by then).
func checkUpdatedDeadline(rp *replay) []Finding {
	if rp.final == nil || rp.final.StartedAt == nil || rp.finished == nil {
		return nil
	}
	var changing []*applied
	for _, a := range rp.accepted {
		if a.next.Spec.ActiveDeadlineSeconds != nil && !equalDeadline(a.prev, a.next) {
			changing = append(changing, a)
		}
	}
	if len(changing) == 0 {
		return nil
	}
	started := *rp.final.StartedAt
	at := func(p *v1alpha1.Pod) time.Time {
		return started.Add(time.Duration(*p.Spec.ActiveDeadlineSeconds) * time.Second)
	}
	var fired *runtimev1.Event
	for _, s := range rp.stops {
		if s.Reason == termDeadline {
			fired = s
			break
		}
	}
	var out []Finding
	if fired != nil {
		// The smallest deadline that can have been in force at the stop: that of the last
		// change that had returned by then (else the one before the first change), and that of
		// each change still in flight then.
		var earliest *time.Time
		consider := func(p *v1alpha1.Pod) {
			if p.Spec.ActiveDeadlineSeconds == nil {
				return
			}
			if t := at(p); earliest == nil || t.Before(*earliest) {
				earliest = &t
			}
		}
		settled := changing[0].prev
		for _, a := range changing {
			switch {
			case !a.u.Issued.Before(fired.Time):
			case a.u.Returned.Before(fired.Time):
				settled = a.next
			default:
				consider(a.next)
			}
		}
		consider(settled)
		if earliest != nil && fired.Time.Before(earliest.Add(-rp.opts.EarlyMargin)) {
			out = append(out, Finding{Rule: spec.UPD014, Seq: fired.Seq,
				Message: fmt.Sprintf("the deadline fired %v before the updated activeDeadlineSeconds after status.startedAt", earliest.Sub(fired.Time).Round(time.Millisecond))})
		}
	}
	last := changing[len(changing)-1]
	due := at(last.next)
	if last.u.Returned.After(due) {
		due = last.u.Returned
	}
	limit := due.Add(rp.opts.Reaction)
	switch {
	case fired != nil && fired.Time.After(limit) && !before(rp.terminating, fired):
		out = append(out, Finding{Rule: spec.UPD014, Seq: fired.Seq,
			Message: fmt.Sprintf("the updated deadline (activeDeadlineSeconds %d from status.startedAt) fired %v after its moment, later than the reaction tolerance %v", *last.next.Spec.ActiveDeadlineSeconds, fired.Time.Sub(due).Round(time.Millisecond), rp.opts.Reaction)})
	case fired == nil && (rp.terminating == nil || rp.terminating.Time.After(limit)) && rp.finished.Time.After(limit):
		out = append(out, Finding{Rule: spec.UPD014,
			Message: fmt.Sprintf("the pod was not terminating within the reaction tolerance %v after its updated deadline, and no deadline fired", rp.opts.Reaction)})
	}
	return out
}

func equalDeadline(a, b *v1alpha1.Pod) bool {
	x, y := a.Spec.ActiveDeadlineSeconds, b.Spec.ActiveDeadlineSeconds
	return (x == nil) == (y == nil) && (x == nil || *x == *y)
}
