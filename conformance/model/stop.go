package model

import (
	"fmt"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Rules of the stop sequence: its order (HB-009..015), its signals (STOP-006..008), the forced
// stop (FORCE-003), and hooks around an instance (HB-005).

// earliestBudgetEnd is the earliest budget end the history allows: the sequence's start plus
// the shortest grace period any cause gives, or a later stop request's end if sooner
// (STOP-003, STOP-012). It serves "not before" checks, which it makes lenient.
func (rp *replay) earliestBudgetEnd() (end time.Time, budget time.Duration) {
	budget = time.Duration(*rp.pod.Spec.TerminationGracePeriodSeconds) * time.Second
	end = rp.terminating.Time.Add(budget)
	for _, s := range rp.stops {
		if s.GracePeriodSeconds == nil {
			continue
		}
		g := time.Duration(*s.GracePeriodSeconds) * time.Second
		budget = min(budget, g)
		at := s.Time
		if before(s, rp.terminating) {
			at = rp.terminating.Time
		}
		if e := at.Add(g); e.Before(end) {
			end = e
		}
	}
	return end, budget
}

// stopWindow is the minimum stop window for a budget (2 s, or the whole budget if shorter).
func stopWindow(budget time.Duration) time.Duration {
	return min(budget, time.Duration(v1alpha1.MinimumStopWindowSeconds)*time.Second)
}

// notifierSignals are the signals the container's notifiers send: a SignalSent of one of them is
// not told from a stop signal by the events.
func (c *container) notifierSignals() map[string]bool {
	out := map[string]bool{}
	if c.spec != nil {
		for _, n := range c.spec.Notifiers {
			if n.Action.Signal != "" {
				out[n.Action.Signal] = true
			}
		}
	}
	return out
}

// stopSignalsSent are the SignalSent events of the instance's stop signal after PodTerminating,
// in seq order (the stop sequence has begun).
func (rp *replay) stopSignalsSent(in *instance) []*runtimev1.Event {
	var out []*runtimev1.Event
	sig := in.c.stopSignal()
	for _, s := range in.signals {
		if s.Seq > rp.terminating.Seq && s.Signal != nil && s.Signal.Name == sig {
			out = append(out, s)
		}
	}
	return out
}

func checkStopSignals(rp *replay) []Finding {
	if rp.terminating == nil {
		return nil
	}
	force := rp.forced()
	end, budget := rp.earliestBudgetEnd()
	window := stopWindow(budget)
	var out []Finding
	for _, c := range rp.kind(kindMain) {
		sig := c.stopSignal()
		for _, in := range c.insts {
			stops := rp.stopSignalsSent(in)
			if len(stops) > 1 && !c.notifierSignals()[sig] {
				out = append(out, Finding{Rule: spec.STOP007, Seq: stops[1].Seq, Container: c.name,
					Message: fmt.Sprintf("sent its stop signal %s %d times in the stop sequence", sig, len(stops))})
			}
			for _, k := range in.signals {
				if k.Seq < rp.terminating.Seq || k.Signal == nil || k.Signal.Name != "SIGKILL" || before(force, k) || in.killedForHealth() {
					continue
				}
				if len(stops) == 0 || !before(stops[0], k) {
					out = append(out, Finding{Rule: spec.STOP006, Seq: k.Seq, Container: c.name,
						Message: "sent SIGKILL in a graceful stop sequence before its stop signal"})
					break
				}
				// With a budget under the window the window is the whole budget, and the stop
				// signal comes after the budget start: SIGKILL at the budget end is on time.
				if gap := k.Time.Sub(stops[0].Time); gap < window-rp.opts.EarlyMargin && k.Time.Before(end.Add(-rp.opts.EarlyMargin)) {
					out = append(out, Finding{Rule: spec.STOP008, Seq: k.Seq, Container: c.name,
						Message: fmt.Sprintf("sent SIGKILL %v after its stop signal, within the minimum stop window %v", gap.Round(time.Millisecond), window)})
				}
				if k.Time.Before(end.Add(-rp.opts.EarlyMargin)) && !k.Time.Before(stops[0].Time.Add(window-rp.opts.EarlyMargin)) {
					out = append(out, Finding{Rule: spec.TIME001, Seq: k.Seq, Container: c.name,
						Message: fmt.Sprintf("sent SIGKILL %v before the budget end", end.Sub(k.Time).Round(time.Millisecond))})
				}
				break
			}
		}
	}
	return out
}

func checkPreStopBeforeSignal(rp *replay) []Finding {
	if rp.terminating == nil {
		return nil
	}
	end, budget := rp.earliestBudgetEnd()
	reserve := end.Add(-stopWindow(budget))
	force := rp.forced()
	var out []Finding
	for _, c := range append(rp.kind(kindMain), rp.kind(kindSidecar)...) {
		sig := c.stopSignal()
		if c.spec.Lifecycle == nil || c.spec.Lifecycle.PreStop == nil || c.notifierSignals()[sig] {
			continue
		}
		handlerEnds := reports(rp.probe, c.name, probe.RoleHook, "preStop")
		for _, in := range c.insts {
			stops := rp.stopSignalsSent(in)
			if len(stops) == 0 {
				continue
			}
			signal := stops[0]
			if before(force, signal) || !signal.Time.Before(reserve.Add(-rp.opts.EarlyMargin)) {
				continue // a forced stop's, or at the reserve point
			}
			if hk := in.healthKill(); hk != nil && hk.Seq < signal.Seq {
				continue // the kill after a failed probe or hook, which runs no preStop (HOOK-011)
			}
			ended := false
			for _, h := range in.hooks {
				ended = ended || (h.Type == runtimev1.EventHookFinished && h.Hook == runtimev1.HookPreStop && before(h, signal))
			}
			// The hook's own report of its end counts too: it is sent before the hook exits.
			for _, p := range handlerEnds {
				ended = ended || (p.Type == probe.TypeHandlerEnd && in.started != nil && p.Received.After(in.started.Time) && p.Received.Before(signal.Time))
			}
			if !ended {
				out = append(out, Finding{Rule: spec.HB012, Seq: signal.Seq, Container: c.name,
					Message: fmt.Sprintf("instance %d was sent its stop signal before its preStop hook had ended, before the reserve point", in.n+1)})
			}
		}
	}
	return out
}

func checkPostStartAfterStart(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		for _, in := range c.insts {
			for _, h := range in.hooks {
				if h.Type == runtimev1.EventHookStarted && h.Hook == runtimev1.HookPostStart && !before(in.started, h) {
					out = append(out, Finding{Rule: spec.HB005, Seq: h.Seq, Container: c.name,
						Message: fmt.Sprintf("its postStart hook started before instance %d was running (ContainerStarted)", in.n+1)})
				}
			}
		}
	}
	return out
}

func checkForced(rp *replay) []Finding {
	f := rp.forced()
	if f == nil {
		return nil
	}
	var out []Finding
	for i := range rp.ev {
		e := &rp.ev[i]
		if e.Seq <= f.Seq {
			continue
		}
		c := rp.byName[e.Container]
		switch {
		case e.Type == runtimev1.EventHookStarted && e.Hook == runtimev1.HookPreStop:
			out = append(out, Finding{Rule: spec.FORCE003, Seq: e.Seq, Container: e.Container, Message: "a preStop hook started after a forced stop"})
		case e.Type == runtimev1.EventContainerStarted && c != nil && c.kind == kindDefer:
			out = append(out, Finding{Rule: spec.FORCE003, Seq: e.Seq, Container: e.Container, Message: "a defer container started after a forced stop"})
		}
	}
	return out
}

// checkExecStepsAfterStop judges MAIN-005 on the events that record an exec step's start: no
// postStart hook starts after a forced stop (a preStop hook is FORCE-003's, checkForced) and no
// notifier action after the stop sequence began. Probe attempts record no start: not judged.
func checkExecStepsAfterStop(rp *replay) []Finding {
	f := rp.forced()
	var out []Finding
	for i := range rp.ev {
		e := &rp.ev[i]
		switch {
		case e.Type == runtimev1.EventHookStarted && e.Hook == runtimev1.HookPostStart && f != nil && e.Seq > f.Seq:
			out = append(out, Finding{Rule: spec.MAIN005, Seq: e.Seq, Container: e.Container,
				Message: fmt.Sprintf("a postStart hook started after the forced stop (#%d)", f.Seq)})
		case e.Type == runtimev1.EventNotifierStarted && rp.terminating != nil && e.Seq > rp.terminating.Seq:
			out = append(out, Finding{Rule: spec.MAIN005, Seq: e.Seq, Container: e.Container,
				Message: fmt.Sprintf("the action of %s (notifier %s) started after PodTerminating (#%d)", e.Notification, e.Notifier, rp.terminating.Seq)})
		}
	}
	return out
}

// runEnd is the event that ends a defer's instance: its exit, or the SIGKILL at its limit.
func runEnd(in *instance) *runtimev1.Event {
	end := in.exited
	for _, s := range in.signals {
		if s.Signal != nil && s.Signal.Name == "SIGKILL" && before(s, end) {
			end = s
		}
	}
	return end
}

func (rp *replay) defersOf(phase v1alpha1.DeferPhase) []*container {
	var out []*container
	for _, c := range rp.kind(kindDefer) {
		if c.dspec.Phase == phase {
			out = append(out, c)
		}
	}
	return out
}

func checkDeferOrder(rp *replay) []Finding {
	var out []Finding
	// HB-010: one defer at a time.
	var all []*instance
	for _, c := range rp.kind(kindDefer) {
		all = append(all, c.startedInsts()...)
	}
	for _, a := range all {
		for _, b := range all {
			if a.c != b.c && a.started.Seq < b.started.Seq && !before(runEnd(a), b.started) {
				out = append(out, Finding{Rule: spec.HB010, Seq: b.started.Seq, Container: b.c.name,
					Message: fmt.Sprintf("started while defer %s's run had not ended", a.c.name)})
			}
		}
	}
	// HB-013: main and regular init containers exited before the first AfterStop defer.
	var first *runtimev1.Event
	for _, c := range rp.defersOf(v1alpha1.DeferAfterStop) {
		if s := c.firstStart(); s != nil && (first == nil || s.Seq < first.Seq) {
			first = s
		}
	}
	if first != nil {
		for _, c := range append(rp.kind(kindMain), rp.kind(kindInit)...) {
			for _, in := range c.startedInsts() {
				if !before(in.exited, first) {
					out = append(out, Finding{Rule: spec.HB013, Seq: first.Seq, Container: c.name,
						Message: fmt.Sprintf("AfterStop defer %s started before instance %d of %s had exited", first.Container, in.n+1, c.name)})
				}
			}
		}
	}
	// HB-009: BeforeStop defers' runs ended before any main preStop hook or stop signal.
	for _, c := range rp.defersOf(v1alpha1.DeferBeforeStop) {
		for _, d := range c.startedInsts() {
			end := runEnd(d)
			for _, m := range rp.kind(kindMain) {
				for _, in := range m.insts {
					for _, e := range append(append([]*runtimev1.Event(nil), in.hooks...), in.signals...) {
						if rp.terminating == nil || e.Seq < rp.terminating.Seq {
							continue
						}
						stopAct := (e.Type == runtimev1.EventHookStarted && e.Hook == runtimev1.HookPreStop) ||
							(e.Type == runtimev1.EventSignalSent && e.Signal != nil && e.Signal.Name == m.stopSignal())
						if stopAct && !before(end, e) {
							out = append(out, Finding{Rule: spec.HB009, Seq: e.Seq, Container: m.name,
								Message: fmt.Sprintf("a preStop hook or stop signal came before BeforeStop defer %s's run ended", c.name)})
						}
					}
				}
			}
		}
	}
	return out
}

// sidecarStopActs are the events of a sidecar's own stop step: its preStop hook's start and its
// stop signal, after the stop sequence began.
func (rp *replay) sidecarStopActs(c *container) []*runtimev1.Event {
	var out []*runtimev1.Event
	if rp.terminating == nil {
		return nil
	}
	for _, in := range c.insts {
		for _, h := range in.hooks {
			if h.Seq > rp.terminating.Seq && h.Type == runtimev1.EventHookStarted && h.Hook == runtimev1.HookPreStop {
				out = append(out, h)
			}
		}
		if c.notifierSignals()[c.stopSignal()] {
			continue
		}
		// A stop signal after a liveness or startup probe's failure (or a failed postStart hook)
		// is that kill's, which may come at any point of the stop sequence, not the sidecar's
		// stop step (HOOK-010, HOOK-008).
		kill := in.healthKill()
		for _, s := range rp.stopSignalsSent(in) {
			if kill == nil || s.Seq < kill.Seq {
				out = append(out, s)
			}
		}
	}
	return out
}

func checkSidecarStopOrder(rp *replay) []Finding {
	var out []Finding
	sidecars := rp.kind(kindSidecar)
	for i, sc := range sidecars {
		acts := rp.sidecarStopActs(sc)
		if len(acts) == 0 {
			continue
		}
		first := acts[0]
		for _, a := range acts {
			if a.Seq < first.Seq {
				first = a
			}
		}
		// HB-014: every main and regular init container exited, every AfterStop defer's run
		// ended, before the last sidecar's step (HB-014 names the last; every sidecar's step
		// comes after it by HB-015, so the check holds for each).
		for _, c := range append(append(rp.kind(kindMain), rp.kind(kindInit)...), rp.defersOf(v1alpha1.DeferAfterStop)...) {
			for _, in := range c.startedInsts() {
				end := in.exited
				if c.kind == kindDefer {
					end = runEnd(in)
				}
				if !before(end, first) {
					out = append(out, Finding{Rule: spec.HB014, Seq: first.Seq, Container: sc.name,
						Message: fmt.Sprintf("the sidecar's stop step began before %s (instance %d) had ended", c.name, in.n+1)})
				}
			}
		}
		// HB-015: every later sidecar exited before this one's step.
		for _, later := range sidecars[i+1:] {
			for _, in := range later.startedInsts() {
				if !before(in.exited, first) {
					out = append(out, Finding{Rule: spec.HB015, Seq: first.Seq, Container: sc.name,
						Message: fmt.Sprintf("the sidecar's stop step began before the later sidecar %s (instance %d) had exited", later.name, in.n+1)})
				}
			}
		}
	}
	return out
}

func checkAllEndedBeforeFinish(rp *replay) []Finding {
	if rp.finished == nil {
		return nil
	}
	var out []Finding
	for _, c := range rp.order {
		for _, in := range c.startedInsts() {
			if !before(in.exited, rp.finished) {
				out = append(out, Finding{Rule: spec.HB016, Seq: rp.finished.Seq, Container: c.name,
					Message: fmt.Sprintf("the pod finished before instance %d had exited", in.n+1)})
			}
		}
	}
	return out
}

func checkForcedDefersSkipped(rp *replay) []Finding {
	f := rp.forced()
	if f == nil || rp.final == nil {
		return nil
	}
	var out []Finding
	for _, c := range rp.kind(kindDefer) {
		settled := false // started, or skipped for another reason, before the forced stop
		for _, in := range c.insts {
			settled = settled || before(in.started, f)
		}
		settled = settled || before(rp.firstEvent(runtimev1.EventContainerSkipped, c.name), f)
		cs := rp.status(c.name)
		if settled || cs == nil {
			continue
		}
		if sk := cs.State.Skipped; sk == nil || sk.Reason != v1alpha1.ReasonForced {
			out = append(out, Finding{Rule: spec.FORCE004, Container: c.name,
				Message: "had not started when the forced stop came, but its final state is not skipped with reason Forced"})
		}
	}
	return out
}

// latestBudgetEnd is the latest budget end the history allows: the sequence's start plus the
// longest grace period a cause before it gives (a later request never moves it later: STOP-011).
// It serves "no later than" checks, which it makes lenient.
func (rp *replay) latestBudgetEnd() time.Time {
	budget := time.Duration(*rp.pod.Spec.TerminationGracePeriodSeconds) * time.Second
	for _, s := range rp.stops {
		if s.GracePeriodSeconds != nil && before(s, rp.terminating) {
			budget = max(budget, time.Duration(*s.GracePeriodSeconds)*time.Second)
		}
	}
	return rp.terminating.Time.Add(budget)
}

func checkBudgetEnd(rp *replay) []Finding {
	if rp.terminating == nil {
		return nil
	}
	due := rp.latestBudgetEnd().Add(rp.opts.Reaction)
	var out []Finding
	for _, c := range rp.order {
		for _, in := range c.startedInsts() {
			if in.exited == nil || !in.exited.Time.After(due) {
				continue
			}
			if !in.killedBy(due) {
				out = append(out, Finding{Rule: spec.STOP010, Seq: in.exited.Seq, Container: c.name,
					Message: fmt.Sprintf("instance %d ran until %v after the budget end and was sent no SIGKILL within the reaction tolerance %v",
						in.n+1, in.exited.Time.Sub(due.Add(-rp.opts.Reaction)).Round(time.Millisecond), rp.opts.Reaction)})
			}
		}
	}
	return out
}

func checkDeadline(rp *replay) []Finding {
	if rp.pod.Spec.ActiveDeadlineSeconds == nil || rp.final == nil || rp.final.StartedAt == nil || rp.finished == nil {
		return nil
	}
	due := rp.final.StartedAt.Add(time.Duration(*rp.pod.Spec.ActiveDeadlineSeconds) * time.Second)
	var fired *runtimev1.Event
	for _, s := range rp.stops {
		if s.Reason == termDeadline {
			fired = s
			break
		}
	}
	switch {
	case fired != nil && fired.Time.Before(due.Add(-rp.opts.EarlyMargin)):
		return []Finding{{Rule: spec.DL002, Seq: fired.Seq, Message: fmt.Sprintf("the deadline fired %v before activeDeadlineSeconds after status.startedAt", due.Sub(fired.Time).Round(time.Millisecond))}}
	case fired != nil && fired.Time.After(due.Add(rp.opts.Reaction)) && !before(rp.terminating, fired):
		return []Finding{{Rule: spec.DL002, Seq: fired.Seq, Message: fmt.Sprintf("the deadline fired %v after its moment, later than the reaction tolerance %v", fired.Time.Sub(due).Round(time.Millisecond), rp.opts.Reaction)}}
	case fired == nil && (rp.terminating == nil || rp.terminating.Time.After(due.Add(rp.opts.Reaction))) && rp.finished.Time.After(due.Add(rp.opts.Reaction)):
		return []Finding{{Rule: spec.DL002, Message: fmt.Sprintf("the pod was not terminating within the reaction tolerance %v after its deadline, and no deadline fired", rp.opts.Reaction)}}
	}
	return nil
}
