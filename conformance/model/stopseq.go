package model

import (
	"fmt"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
)

// More rules of the stop sequence: its order between dependents (HB-011), the Terminating
// condition (STOP-004), cancelled restarts (STOP-005), how sidecars are stopped (STOP-009), later
// stop requests (STOP-011, STOP-012), the forced stop (FORCE-001, FORCE-002, FORCE-005), starts
// against the stop (MAIN-004), the deadline (DL-001, DL-003) and sidecars' exits (SIDE-002).

// stopStep is the first stop signal of the instance's own stop step in the stop sequence: not
// one a kill for its health sent (HOOK-008..010), nil if none.
func (rp *replay) stopStep(in *instance) *runtimev1.Event {
	kill := in.healthKill()
	for _, s := range rp.stopSignalsSent(in) {
		if kill == nil || s.Seq < kill.Seq {
			return s
		}
	}
	return nil
}

// reservePoint is the earliest reserve point the history allows (the earliest budget end less
// the minimum stop window): a signal at or after it may be the reserve point's.
func (rp *replay) reservePoint() time.Time {
	end, budget := rp.earliestBudgetEnd()
	return end.Add(-stopWindow(budget))
}

// checkDependentsStopFirst judges HB-011: a main container's stop signal, sent in a graceful stop
// sequence before the reserve point, comes after every instance of the main containers that
// depend on it has exited.
func checkDependentsStopFirst(rp *replay) []Finding {
	if rp.terminating == nil {
		return nil
	}
	reserve := rp.reservePoint().Add(-rp.opts.EarlyMargin)
	force := rp.forced()
	var out []Finding
	for _, x := range rp.kind(kindMain) {
		if x.notifierSignals()[x.stopSignal()] {
			continue
		}
		var dependents []*container
		for _, d := range rp.kind(kindMain) {
			for _, dep := range d.spec.DependsOn {
				if dep.Name == x.name {
					dependents = append(dependents, d)
				}
			}
		}
		for _, in := range x.insts {
			sig := rp.stopStep(in)
			if sig == nil || before(force, sig) || !sig.Time.Before(reserve) {
				continue
			}
			for _, d := range dependents {
				for _, din := range d.startedInsts() {
					if !before(din.exited, sig) {
						out = append(out, Finding{Rule: spec.HB011, Seq: sig.Seq, Container: x.name,
							Message: fmt.Sprintf("was sent its stop signal before the reserve point while its dependent %s (instance %d) had not exited", d.name, din.n+1)})
					}
				}
			}
		}
	}
	return out
}

// checkTerminatingCleared judges STOP-004's second half on the final status: a terminal pod's
// condition Terminating is False. (Its first half, True at the beginning, is a status read while
// the pod runs, which the history does not hold.)
func checkTerminatingCleared(rp *replay) []Finding {
	if rp.final == nil || (rp.final.Phase != v1alpha1.PodSucceeded && rp.final.Phase != v1alpha1.PodFailed) {
		return nil
	}
	for _, c := range rp.final.Conditions {
		if c.Type == v1alpha1.PodTerminating && c.Status != v1alpha1.ConditionFalse {
			return []Finding{{Rule: spec.STOP004, Message: fmt.Sprintf("the pod is %s, yet its condition Terminating is %s", rp.final.Phase, c.Status)}}
		}
	}
	return nil
}

// checkCancelledRestarts judges STOP-005 on the final status: an init or main container whose
// restart was decided (ContainerRestarting after its last exit) but not started when the stop
// sequence began ends with that last termination as its state, not waiting.
func checkCancelledRestarts(rp *replay) []Finding {
	if rp.terminating == nil || rp.final == nil {
		return nil
	}
	var out []Finding
	for _, c := range append(rp.kind(kindInit), rp.kind(kindMain)...) {
		last := c.last()
		if last == nil || last.exited == nil || !before(last.exited, rp.terminating) {
			continue
		}
		pending := false
		for i := range rp.ev {
			e := &rp.ev[i]
			pending = pending || (e.Type == runtimev1.EventContainerRestarting && e.Container == c.name && e.Seq > last.exited.Seq && e.Seq < rp.terminating.Seq)
		}
		cs := rp.status(c.name)
		if !pending || cs == nil {
			continue
		}
		if cs.State.Waiting != nil || cs.State.Terminated == nil {
			out = append(out, Finding{Rule: spec.STOP005, Container: c.name,
				Message: fmt.Sprintf("its restart was pending when the stop sequence began (#%d), yet its final state is not its last termination (#%d)", rp.terminating.Seq, last.exited.Seq)})
		}
	}
	return out
}

// checkSidecarStopSignal judges STOP-009's stop signal: in a graceful stop sequence, a sidecar
// is not sent SIGKILL before its stop signal, unless the budget ends first or a kill for its
// health sent it.
func checkSidecarStopSignal(rp *replay) []Finding {
	if rp.terminating == nil {
		return nil
	}
	end, _ := rp.earliestBudgetEnd()
	force := rp.forced()
	var out []Finding
	for _, c := range rp.kind(kindSidecar) {
		for _, in := range c.insts {
			if in.killedForHealth() {
				continue
			}
			stop := rp.stopStep(in)
			for _, k := range in.signals {
				if k.Seq < rp.terminating.Seq || k.Signal == nil || k.Signal.Name != "SIGKILL" || before(force, k) || !k.Time.Before(end.Add(-rp.opts.EarlyMargin)) {
					continue
				}
				if !before(stop, k) {
					out = append(out, Finding{Rule: spec.STOP009, Seq: k.Seq, Container: c.name,
						Message: fmt.Sprintf("instance %d was sent SIGKILL in a graceful stop sequence, before the budget end, without its stop signal %s first", in.n+1, c.stopSignal())})
				}
				break
			}
		}
	}
	return out
}

// killedBy says the runtime sent the instance SIGKILL no later than limit.
func (in *instance) killedBy(limit time.Time) bool {
	for _, s := range in.signals {
		if s.Signal != nil && s.Signal.Name == "SIGKILL" && !s.Time.After(limit) {
			return true
		}
	}
	return false
}

// laterRequests are the graceful stop requests that give a grace period, recorded once the stop
// sequence had begun, in seq order.
func (rp *replay) laterRequests() []*runtimev1.Event {
	var out []*runtimev1.Event
	for _, s := range rp.stops {
		if rp.terminating != nil && s.Seq > rp.terminating.Seq && !isForced(s) && s.GracePeriodSeconds != nil {
			out = append(out, s)
		}
	}
	return out
}

// checkLaterRequests judges STOP-011 and STOP-012: a stop request for a terminating pod moves the
// budget end to the end of its own grace period (counted from the request) when that is sooner,
// and never later. An instance still running a reaction tolerance after that budget end and not
// sent SIGKILL by then breaks the one or the other; a main container's SIGKILL before the end of
// a request's grace period that shortened the budget breaks STOP-012.
func checkLaterRequests(rp *replay) []Finding {
	later := rp.laterRequests()
	if len(later) == 0 || rp.forced() != nil {
		return nil
	}
	due := rp.latestBudgetEnd()
	var shortened, longer *runtimev1.Event
	for _, r := range later {
		e := r.Time.Add(time.Duration(*r.GracePeriodSeconds) * time.Second)
		if e.Before(due) {
			due, shortened = e, r
		} else if longer == nil {
			longer = r
		}
	}
	var out []Finding
	rule, cause, how := spec.STOP011, longer, "must not move later"
	if shortened != nil {
		rule, cause, how = spec.STOP012, shortened, "moved earlier"
	}
	if cause != nil {
		limit := due.Add(rp.opts.Reaction)
		for _, c := range rp.order {
			for _, in := range c.startedInsts() {
				if in.exited == nil || !in.exited.Time.After(limit) {
					continue
				}
				if !in.killedBy(limit) {
					out = append(out, Finding{Rule: rule, Seq: in.exited.Seq, Container: c.name,
						Message: fmt.Sprintf("instance %d ran %v past the budget end, which the stop request #%d (grace period %ds) %s, and was sent no SIGKILL within the reaction tolerance %v",
							in.n+1, in.exited.Time.Sub(due).Round(time.Millisecond), cause.Seq, *cause.GracePeriodSeconds, how, rp.opts.Reaction)})
				}
			}
		}
	}
	if shortened == nil {
		return out
	}
	// A SIGKILL sooner than the earliest budget end is STOP-012's only when that end is the
	// shortening request's own (else the budget end before it was never moved: TIME-001's).
	end, _ := rp.earliestBudgetEnd()
	if !end.Equal(shortened.Time.Add(time.Duration(*shortened.GracePeriodSeconds) * time.Second)) {
		return out
	}
	for _, c := range rp.kind(kindMain) {
		for _, in := range c.insts {
			if in.killedForHealth() {
				continue
			}
			for _, k := range in.signals {
				if k.Seq > shortened.Seq && k.Signal != nil && k.Signal.Name == "SIGKILL" && k.Time.Before(end.Add(-rp.opts.EarlyMargin)) {
					out = append(out, Finding{Rule: spec.STOP012, Seq: k.Seq, Container: c.name,
						Message: fmt.Sprintf("was sent SIGKILL %v before the end of the grace period of the stop request #%d (%ds from the request)",
							end.Sub(k.Time).Round(time.Millisecond), shortened.Seq, *shortened.GracePeriodSeconds)})
					break
				}
			}
		}
	}
	return out
}

// checkGraceZeroForced judges FORCE-001 for a stop request with a grace period of 0 and no
// --force that begins the stop sequence: it is a forced stop, so after it no preStop hook starts,
// once the sequence began no instance is sent a signal other than SIGKILL (a kill for its health
// and a notifier's signal aside), and the termination reason is Forced.
func checkGraceZeroForced(rp *replay) []Finding {
	if rp.terminating == nil || len(rp.stops) == 0 || len(rp.fired) > 0 && before(rp.fired[0], rp.terminating) {
		return nil
	}
	r := rp.stops[0]
	if r.Force || r.GracePeriodSeconds == nil || *r.GracePeriodSeconds != 0 || !before(r, rp.terminating) {
		return nil
	}
	var out []Finding
	for _, c := range rp.order {
		for _, in := range c.insts {
			for _, h := range in.hooks {
				if h.Seq > r.Seq && h.Type == runtimev1.EventHookStarted && h.Hook == runtimev1.HookPreStop {
					out = append(out, Finding{Rule: spec.FORCE001, Seq: h.Seq, Container: c.name, Message: fmt.Sprintf("a preStop hook started after the stop request #%d with grace period 0, a forced stop", r.Seq)})
				}
			}
			if in.killedForHealth() {
				continue
			}
			for _, s := range in.signals {
				// A notifier's signal may have been under way when the request came (MAIN-005).
				if s.Seq > rp.terminating.Seq && s.Signal != nil && s.Signal.Name != "SIGKILL" && !c.notifierSignals()[s.Signal.Name] {
					out = append(out, Finding{Rule: spec.FORCE001, Seq: s.Seq, Container: c.name, Message: fmt.Sprintf("was sent %s after the stop request #%d with grace period 0, a forced stop, which sends SIGKILL alone", s.Signal.Name, r.Seq)})
					break
				}
			}
		}
	}
	if rp.final != nil && rp.final.Reason != "" && rp.final.Reason != termForced {
		out = append(out, Finding{Rule: spec.FORCE001, Message: fmt.Sprintf("the stop request #%d with grace period 0 began the stop sequence, yet the termination reason is %s, not %s", r.Seq, rp.final.Reason, termForced)})
	}
	return out
}

// checkForcedAtOnce judges FORCE-002 and FORCE-005: every instance running when a forced stop is
// recorded is sent SIGKILL, or has ended, within the reaction tolerance; a forced stop that
// arrives during a graceful stop sequence (FORCE-005) as well as one that begins it (FORCE-002).
func checkForcedAtOnce(rp *replay) []Finding {
	f := rp.forced()
	if f == nil {
		return nil
	}
	rule := spec.FORCE002
	if before(rp.terminating, f) {
		rule = spec.FORCE005
	}
	limit := f.Time.Add(rp.opts.Reaction)
	var out []Finding
	for _, c := range rp.order {
		for _, in := range c.startedInsts() {
			if !before(in.started, f) || before(in.exited, f) {
				continue
			}
			if (in.exited == nil && rp.finished == nil) || (in.exited != nil && !in.exited.Time.After(limit)) {
				continue // still running when the history ends, or ended in time
			}
			if !in.killedBy(limit) {
				out = append(out, Finding{Rule: rule, Seq: f.Seq, Container: c.name,
					Message: fmt.Sprintf("instance %d was running at the forced stop request and was neither sent SIGKILL nor ended within the reaction tolerance %v", in.n+1, rp.opts.Reaction)})
			}
		}
	}
	return out
}

// checkNoMainStartAfterTerminating judges MAIN-004: no ContainerStarted of a main container follows
// PodTerminating, whenever its instance was created (one created after it also breaks MAIN-002).
func checkNoMainStartAfterTerminating(rp *replay) []Finding {
	if rp.terminating == nil {
		return nil
	}
	var out []Finding
	for _, m := range rp.kind(kindMain) {
		for _, in := range m.startedInsts() {
			if in.started.Seq > rp.terminating.Seq {
				out = append(out, Finding{Rule: spec.MAIN004, Seq: in.started.Seq, Container: m.name,
					Message: fmt.Sprintf("instance %d's ContainerStarted follows PodTerminating (#%d)", in.n+1, rp.terminating.Seq)})
			}
		}
	}
	return out
}

// checkStartedAt judges DL-001 on the final status: status.startedAt, where set, is no later than
// the reaction tolerance after the pod's first ContainerStarted, and not after that instance's
// exit was recorded (a startedAt taken at a later start, such as the first main container's).
func checkStartedAt(rp *replay) []Finding {
	if rp.final == nil {
		return nil
	}
	var first *instance
	for _, c := range rp.order {
		if c.kind == kindDefer {
			continue // a pod stopped before any other start runs its defers last: not judged
		}
		for _, in := range c.startedInsts() {
			if first == nil || in.started.Seq < first.started.Seq {
				first = in
			}
		}
	}
	if first == nil {
		return nil
	}
	at := rp.final.StartedAt
	if at == nil {
		return nil // a status without startedAt is a status read the model does not judge
	}
	limit := first.started.Time.Add(rp.opts.Reaction)
	if first.exited != nil && first.exited.Time.Before(limit) {
		limit = first.exited.Time
	}
	if at.After(limit) {
		return []Finding{{Rule: spec.DL001, Seq: first.started.Seq, Container: first.c.name,
			Message: fmt.Sprintf("status.startedAt is %v after the pod's first ContainerStarted, later than that instance's end or the reaction tolerance %v", at.Sub(first.started.Time).Round(time.Millisecond), rp.opts.Reaction)}}
	}
	return nil
}

// checkDeadlineKeepsReason judges DL-003's termination reason: a stop sequence that began before
// the deadline could pass (status.startedAt plus activeDeadlineSeconds) does not end with reason
// DeadlineExceeded.
func checkDeadlineKeepsReason(rp *replay) []Finding {
	if rp.terminating == nil || rp.final == nil || rp.final.StartedAt == nil {
		return nil
	}
	for _, s := range rp.stops {
		if s.Reason == termDeadline && before(s, rp.terminating) {
			return nil // the deadline began the sequence, early or not: DL-002's
		}
	}
	due := rp.final.StartedAt.Add(time.Duration(*rp.pod.Spec.ActiveDeadlineSeconds) * time.Second)
	if !rp.terminating.Time.Before(due.Add(-rp.opts.EarlyMargin)) {
		return nil
	}
	var out []Finding
	if rp.final.Reason == termDeadline {
		out = append(out, Finding{Rule: spec.DL003, Message: fmt.Sprintf("the stop sequence began %v before the deadline, yet the termination reason is %s", due.Sub(rp.terminating.Time).Round(time.Millisecond), termDeadline)})
	}
	if rp.finished != nil && rp.finished.Reason == termDeadline {
		out = append(out, Finding{Rule: spec.DL003, Seq: rp.finished.Seq, Message: fmt.Sprintf("the stop sequence began %v before the deadline, yet PodFinished has reason %s", due.Sub(rp.terminating.Time).Round(time.Millisecond), termDeadline)})
	}
	return out
}

// checkSidecarsNotCounted judges SIDE-002 on the pod result: a pod that finished Failed is decided
// by no sidecar, and fails for a reason other than its sidecars' exits, when the main and init
// containers allow no Failed result.
func checkSidecarsNotCounted(rp *replay) []Finding {
	if rp.final == nil || rp.finished == nil {
		return nil
	}
	var out []Finding
	if c := rp.byName[rp.final.DecidedBy]; c != nil && c.kind == kindSidecar {
		out = append(out, Finding{Rule: spec.SIDE002, Container: c.name, Message: "the pod result is decided by a sidecar"})
		return out
	}
	if rp.final.Phase != v1alpha1.PodFailed || rp.final.Reason == "" {
		return nil
	}
	allowed := rp.results(rp.final.Reason)
	if allowed == nil {
		return nil
	}
	for _, r := range allowed {
		if r.phase == v1alpha1.PodFailed {
			return nil
		}
	}
	for _, c := range rp.kind(kindSidecar) {
		for _, in := range c.insts {
			if fail, _ := rp.failure(in); fail {
				out = append(out, Finding{Rule: spec.SIDE002, Seq: in.exited.Seq, Container: c.name,
					Message: fmt.Sprintf("the pod is Failed, which only this sidecar's exit (instance %d) would give", in.n+1)})
				return out
			}
		}
	}
	return out
}
