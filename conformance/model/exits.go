package model

import (
	"fmt"
	"regexp"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Rules of the pod's end, exit statuses, restarts and identity that the final status and the
// events decide: the pod's UID (ID-004, ID-005), the exit policy's order (EXIT-008), the
// condition Initialized (EXIT-010), finishedAt (EXIT-011), which ends count as failures
// (EXIT-012, EXIT-013), oomKilled and coreDumped (STAT-004, STAT-005), the restart policy that
// applies (RST-002, INIT-002, MAN-011), a restart's effect on the other containers (RST-007) and
// the back-off's reset (RST-009).

// uuidText is an RFC 9562 UUID in its canonical text form (version 1-8, variant 10xx).
var uuidText = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// checkUID judges the pod's UID: an RFC 9562 UUID in its text form (ID-004), the same in the
// final status and on every event, whatever restarted, was updated or replaced (ID-005).
func checkUID(rp *replay) []Finding {
	var out []Finding
	ref, from := "", ""
	if rp.final != nil {
		ref, from = rp.final.UID, "status.uid"
		if !uuidText.MatchString(ref) {
			out = append(out, Finding{Rule: spec.ID004, Message: fmt.Sprintf("status.uid %q is not an RFC 9562 UUID in its text form", ref)})
		}
	}
	badForm := false
	for i := range rp.ev {
		e := &rp.ev[i]
		if e.PodUID == "" {
			continue
		}
		if ref == "" {
			ref, from = e.PodUID, fmt.Sprintf("event #%d", e.Seq)
		}
		if !badForm && !uuidText.MatchString(e.PodUID) {
			badForm = true
			out = append(out, Finding{Rule: spec.ID004, Seq: e.Seq, Message: fmt.Sprintf("%s has podUID %q, not an RFC 9562 UUID in its text form", e.Type, e.PodUID)})
		}
		if e.PodUID != ref {
			out = append(out, Finding{Rule: spec.ID005, Seq: e.Seq, Container: e.Container,
				Message: fmt.Sprintf("%s has podUID %s, but the pod's UID is %s (%s)", e.Type, e.PodUID, ref, from)})
		}
	}
	return out
}

// checkPolicyOrder judges the container PolicyFired names: the one whose terminal exit fires the
// policy when the terminal exits are taken in event order (EXIT-008). Not judged when an end
// before it may or may not count as a failure where that decides whether it is terminal or
// fires the policy.
func checkPolicyOrder(rp *replay) []Finding {
	if len(rp.fired) == 0 || rp.fired[0].Container == "" {
		return nil
	}
	f := rp.fired[0]
	fp, _ := rp.firePoint()
	if fp == nil || !before(fp.at, f) {
		return nil // EXIT-002's
	}
	for _, c := range rp.kind(kindMain) {
		for _, in := range c.insts {
			if in.exited == nil || !before(in.exited, f) {
				continue
			}
			fail, succeed := rp.failure(in)
			if fail && succeed && (c.policy == v1alpha1.RestartPolicyOnFailure || rp.pod.Spec.ExitPolicy == v1alpha1.ExitPolicyAnyFailure) {
				return nil
			}
		}
	}
	if f.Container == fp.c.name {
		return nil
	}
	return []Finding{{Rule: spec.EXIT008, Seq: f.Seq, Container: f.Container,
		Message: fmt.Sprintf("PolicyFired names %s, but in event order the terminal exit that fires exit policy %s is %s's (#%d; terminal exits before it: %s)",
			f.Container, rp.pod.Spec.ExitPolicy, fp.c.name, fp.at.Seq, rp.describeTerminals(f))}}
}

// checkInitialized judges when the condition Initialized became True: not before every regular
// init container exited 0 and every sidecar started (EXIT-010; a sidecar is Started no earlier
// than its ContainerStarted).
func checkInitialized(rp *replay) []Finding {
	if rp.final == nil {
		return nil
	}
	var cond *v1alpha1.PodCondition
	for i := range rp.final.Conditions {
		if rp.final.Conditions[i].Type == v1alpha1.PodInitialized {
			cond = &rp.final.Conditions[i]
		}
	}
	if cond == nil || cond.Status != v1alpha1.ConditionTrue || cond.LastTransitionTime == nil {
		return nil
	}
	at := *cond.LastTransitionTime
	var out []Finding
	late := func(c *container, e *runtimev1.Event, what string) {
		switch {
		case e == nil:
			out = append(out, Finding{Rule: spec.EXIT010, Container: c.name,
				Message: fmt.Sprintf("Initialized is True (since %s), but %s %s never", at.Format(stamp), c.name, what)})
		case at.Before(e.Time.Add(-rp.opts.EarlyMargin)):
			out = append(out, Finding{Rule: spec.EXIT010, Seq: e.Seq, Container: c.name,
				Message: fmt.Sprintf("Initialized became True at %s, %v before %s %s", at.Format(stamp), e.Time.Sub(at).Round(time.Millisecond), c.name, what)})
		}
	}
	for _, c := range rp.order {
		switch c.kind {
		case kindInit:
			var ok *runtimev1.Event
			for _, in := range c.insts {
				if in.exited != nil && in.exited.ExitCode != nil && *in.exited.ExitCode == 0 {
					ok = in.exited
					break
				}
			}
			late(c, ok, "exited 0")
		case kindSidecar:
			late(c, c.firstStart(), "started")
		}
	}
	return out
}

// stamp is the time format of findings.
const stamp = "15:04:05.000000"

// checkFinishedAt judges status.finishedAt of a terminal pod: set, and not before the pod
// became terminal, which is not before every container's last instance ended (EXIT-011).
func checkFinishedAt(rp *replay) []Finding {
	if rp.final == nil || (rp.final.Phase != v1alpha1.PodSucceeded && rp.final.Phase != v1alpha1.PodFailed) {
		return nil
	}
	if rp.final.FinishedAt == nil {
		return []Finding{{Rule: spec.EXIT011, Message: fmt.Sprintf("the pod is terminal (%s) but status.finishedAt is not set", rp.final.Phase)}}
	}
	var last *runtimev1.Event
	for i := range rp.ev {
		if e := &rp.ev[i]; e.Type == runtimev1.EventContainerExited && (last == nil || e.Time.After(last.Time)) {
			last = e
		}
	}
	at := *rp.final.FinishedAt
	if last != nil && at.Before(last.Time.Add(-rp.opts.EarlyMargin)) {
		return []Finding{{Rule: spec.EXIT011, Seq: last.Seq, Container: last.Container,
			Message: fmt.Sprintf("status.finishedAt is %s, %v before %s's instance ended: the pod was not terminal then",
				at.Format(stamp), last.Time.Sub(at).Round(time.Millisecond), last.Container)}}
	}
	return nil
}

// checkFailureCounts judges which ends the pod's result counts as failures (EXIT-012, EXIT-013):
// a Failed pod's decidedBy names a container whose terminal end is a failure, and a Succeeded
// pod has no main or regular init container under restart policy Never whose terminal end is
// one. An end the history lets count either way is not judged.
func checkFailureCounts(rp *replay) []Finding {
	phase, decided, seq := v1alpha1.PodPhase(""), "", int64(0)
	switch {
	case rp.finished != nil:
		phase, decided, seq = rp.finished.Phase, rp.finished.DecidedBy, rp.finished.Seq
	case rp.final != nil:
		phase, decided = rp.final.Phase, rp.final.DecidedBy
	default:
		return nil
	}
	ruleOf := func(in *instance) string {
		if yes, sure := rp.stopped(in); yes && sure {
			return spec.EXIT013
		}
		return spec.EXIT012
	}
	var out []Finding
	switch phase {
	case v1alpha1.PodFailed:
		c := rp.byName[decided]
		if c == nil || (c.kind != kindMain && c.kind != kindInit) {
			return nil
		}
		end := rp.terminalEnd(c)
		if end == nil {
			return nil
		}
		if fail, succeed := rp.failure(end); !fail && succeed {
			out = append(out, Finding{Rule: ruleOf(end), Seq: seq, Container: c.name,
				Message: fmt.Sprintf("the pod failed, decided by %s, whose terminal end (%s%s) is not a failure", c.name, describeEnd(end), stoppedNote(rp, end))})
		}
	case v1alpha1.PodSucceeded:
		for _, c := range append(rp.kind(kindInit), rp.kind(kindMain)...) {
			if c.policy != v1alpha1.RestartPolicyNever {
				continue
			}
			end := rp.terminalEnd(c)
			if end == nil || !before(end.exited, rp.finished) {
				continue
			}
			if fail, succeed := rp.failure(end); fail && !succeed {
				out = append(out, Finding{Rule: ruleOf(end), Seq: seq, Container: c.name,
					Message: fmt.Sprintf("the pod succeeded, but %s's terminal end (%s%s) is a failure", c.name, describeEnd(end), stoppedNote(rp, end))})
			}
		}
	}
	return out
}

// stoppedNote says in a finding that the runtime stopped the instance.
func stoppedNote(rp *replay, in *instance) string {
	if yes, sure := rp.stopped(in); yes && sure {
		return "; the runtime stopped it"
	}
	return ""
}

// terminatedOf pairs the final status' terminated states of a container (state, then lastState)
// with the instances they record: by containerID, else the last and the one before it.
func (rp *replay) terminatedOf(c *container) map[*v1alpha1.ContainerStateTerminated]*instance {
	cs := rp.status(c.name)
	if cs == nil {
		return nil
	}
	var ended []*instance
	for _, in := range c.insts {
		if in.exited != nil {
			ended = append(ended, in)
		}
	}
	out := map[*v1alpha1.ContainerStateTerminated]*instance{}
	for back, t := range []*v1alpha1.ContainerStateTerminated{cs.State.Terminated, cs.LastState.Terminated} {
		if t == nil {
			continue
		}
		var in *instance
		for _, x := range ended {
			if t.ContainerID != "" && x.containerID() == t.ContainerID {
				in = x
			}
		}
		if in == nil && t.ContainerID == "" && len(ended) > back {
			in = ended[len(ended)-1-back]
		}
		out[t] = in
	}
	return out
}

// coreSignals are the signals whose default action dumps a core (signal(7)).
var coreSignals = map[string]bool{"SIGQUIT": true, "SIGILL": true, "SIGTRAP": true, "SIGABRT": true, "SIGBUS": true,
	"SIGFPE": true, "SIGSEGV": true, "SIGXCPU": true, "SIGXFSZ": true, "SIGSYS": true}

// crashReport is the workload's report of the signal it raised, nil if none.
func (in *instance) crashReport() *probe.Event {
	for i := range in.work {
		if in.work[i].Type == probe.TypeCrash {
			return &in.work[i]
		}
	}
	return nil
}

// checkCoreDumped judges coreDumped in the final status (STAT-005, its only-if direction): the
// wait status reports no core dump for an exit, for a signal whose default action dumps none, or
// for a process that made itself non-dumpable before it crashed (its report says so).
func checkCoreDumped(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		for t, in := range rp.terminatedOf(c) {
			if !t.CoreDumped {
				continue
			}
			why := ""
			switch {
			case t.Signal == nil:
				why = "no signal ended it"
			case !coreSignals[t.Signal.Name]:
				why = t.Signal.Name + "'s default action dumps no core"
			case in != nil && in.crashReport() != nil && in.crashReport().Core != nil && !in.crashReport().Core.Dumpable:
				why = "its process made itself non-dumpable before it raised " + t.Signal.Name
			default:
				continue
			}
			f := Finding{Rule: spec.STAT005, Container: c.name, Message: "the final status reports coreDumped, but " + why}
			if in != nil {
				f.Seq = in.exited.Seq
			}
			out = append(out, f)
		}
	}
	return out
}

// checkOOMKilled judges oomKilled in the final status (STAT-004, its only-if direction) where
// the history shows who killed the instance: the runtime sent it SIGKILL and died of it, and its
// workload, which allocates memory only when told to (it then reports eating), never did.
func checkOOMKilled(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		for t, in := range rp.terminatedOf(c) {
			if !t.OOMKilled || in == nil || len(in.work) == 0 || t.Signal == nil || t.Signal.Name != "SIGKILL" {
				continue
			}
			kill := signalBeforeEnd(in, "SIGKILL")
			if kill == nil {
				continue
			}
			ate := false
			for _, p := range in.work {
				ate = ate || p.Type == probe.TypeEat
			}
			if !ate {
				out = append(out, Finding{Rule: spec.STAT004, Seq: in.exited.Seq, Container: c.name,
					Message: fmt.Sprintf("the final status reports oomKilled, but the runtime SIGKILLed the instance (#%d) and its workload never allocated memory", kill.Seq)})
			}
		}
	}
	return out
}

// policySource is the requirement that decides a container's effective restart policy, and the
// policy a runtime that broke it would apply instead ("" when none of RST-002, INIT-002 and
// MAN-011 decides it).
func (rp *replay) policySource(c *container) (string, v1alpha1.RestartPolicy) {
	if c.spec == nil || (c.kind != kindInit && c.kind != kindMain) {
		return "", ""
	}
	podPolicy := rp.pod.Spec.RestartPolicy
	if c.kind == kindInit && podPolicy == v1alpha1.RestartPolicyAlways {
		podPolicy = v1alpha1.RestartPolicyOnFailure
	}
	switch {
	case c.spec.RestartPolicy != nil:
		if podPolicy == c.policy {
			return "", ""
		}
		return spec.RST002, podPolicy
	case c.kind == kindInit && rp.pod.Spec.RestartPolicy == v1alpha1.RestartPolicyAlways:
		return spec.INIT002, v1alpha1.RestartPolicyNever
	case rp.raw != nil && rp.raw.Spec.RestartPolicy == "":
		return spec.MAN011, v1alpha1.RestartPolicyOnFailure
	}
	return "", ""
}

// under is a copy of the container with another effective restart policy, its instances
// copied to point at it.
func (c *container) under(p v1alpha1.RestartPolicy) *container {
	alt := *c
	alt.policy = p
	alt.insts = nil
	for _, in := range c.insts {
		cp := *in
		cp.c = &alt
		alt.insts = append(alt.insts, &cp)
	}
	return &alt
}

// restartMisses are the ways the history departs from the container's restart policy: a
// restart after an end it does not restart, a restart it needs that did not come in time
// (missingRestart), or an end it restarts that the runtime took for terminal (the exit policy
// fired at it, or, for an init container, the stop sequence began with nothing else to begin it).
func (rp *replay) restartMisses(c *container) []string {
	var out []string
	st := c.startedInsts()
	for i := 0; i+1 < len(st); i++ {
		if in := st[i]; in.exited != nil {
			if can, _ := rp.restartWanted(in); !can && !(c.kind == kindInit && in.exited.ExitCode != nil && *in.exited.ExitCode == 0) {
				out = append(out, fmt.Sprintf("restarted after %s", describeEnd(in)))
			}
		}
	}
	for _, f := range rp.missingRestart(c, "") {
		out = append(out, f.Message)
	}
	last := c.last()
	if last == nil || last.exited == nil || !before(last.exited, rp.terminating) {
		return out
	}
	if _, must := rp.restartWanted(last); !must {
		return out
	}
	switch {
	case len(rp.fired) > 0 && rp.fired[0].Container == c.name && before(last.exited, rp.fired[0]):
		out = append(out, fmt.Sprintf("the exit policy fired at %s, which its policy restarts", describeEnd(last)))
	case c.kind == kindInit && len(rp.fired) == 0 && (len(rp.stops) == 0 || !before(rp.stops[0], rp.terminating)):
		out = append(out, fmt.Sprintf("the stop sequence began at %s, which its policy restarts", describeEnd(last)))
	}
	return out
}

// checkPolicySource judges the restart policy a runtime applied, where the requirement that
// resolves it decides (RST-002, INIT-002, MAN-011): the history departs from the policy it
// resolves to and matches the one a runtime that broke it would apply.
func checkPolicySource(id string) func(*replay) []Finding {
	return func(rp *replay) []Finding {
		var out []Finding
		for _, c := range append(rp.kind(kindInit), rp.kind(kindMain)...) {
			src, alt := rp.policySource(c)
			if src != id {
				continue
			}
			misses := rp.restartMisses(c)
			if len(misses) == 0 || len(rp.restartMisses(c.under(alt))) > 0 {
				continue
			}
			out = append(out, Finding{Rule: id, Container: c.name,
				Message: fmt.Sprintf("its restart policy is %s (%s), but the runtime treated it as %s: %s", c.policy, policyOrigin(id), alt, misses[0])})
		}
		return out
	}
}

// policyOrigin says where a container's policy comes from, per requirement.
func policyOrigin(id string) string {
	switch id {
	case spec.RST002:
		return "its own restartPolicy"
	case spec.INIT002:
		return "an init container's Always restarts as OnFailure"
	}
	return "the default of spec.restartPolicy, which the manifest leaves unset"
}

// hasOwnPolicy says a main or regular init container sets its own restartPolicy.
func hasOwnPolicy(p *v1alpha1.Pod) bool {
	for i := range p.Spec.InitContainers {
		if rp := p.Spec.InitContainers[i].RestartPolicy; rp != nil && *rp != v1alpha1.RestartPolicyAlways {
			return true
		}
	}
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].RestartPolicy != nil {
			return true
		}
	}
	return false
}

// hasAlwaysInit says a regular init container's resolved restart policy is Always.
func hasAlwaysInit(p *v1alpha1.Pod) bool {
	return hasRegularInit(p) && p.Spec.RestartPolicy == v1alpha1.RestartPolicyAlways
}

// restartsAlways says the pod's restart policy is Always, as it is by default.
func restartsAlways(p *v1alpha1.Pod) bool {
	return p.Spec.RestartPolicy == v1alpha1.RestartPolicyAlways
}

// checkBackoffReset judges the delay of a restart after an instance that ran resetAfterSeconds
// or longer, where the reset makes a difference (the restart would wait longer if the back-off
// had never been reset): the restart is the first, so the next instance's first event
// (ContainerCreated, the start of the restart) comes within initialSeconds plus the reaction
// tolerance (RST-009). Judged where the run was at least resetAfterSeconds plus the early
// margin long by the events' clock.
func checkBackoffReset(rp *replay) []Finding {
	reset := time.Duration(*rp.pod.Spec.RestartBackoff.ResetAfterSeconds * float64(time.Second))
	first := rp.backoff(1)
	var out []Finding
	for _, c := range rp.order {
		if c.kind == kindDefer {
			continue
		}
		st := c.startedInsts()
		for i := 1; i < len(st); i++ {
			prev, in := st[i-1], st[i]
			if !before(prev.exited, in.earliest()) || prev.exited.Time.Sub(prev.started.Time) < reset+rp.opts.EarlyMargin || rp.backoff(i) <= first {
				continue
			}
			if gap := in.earliest().Time.Sub(prev.exited.Time); gap > first+rp.opts.Reaction {
				out = append(out, Finding{Rule: spec.RST009, Seq: in.earliest().Seq, Container: c.name,
					Message: fmt.Sprintf("instance %d ran %v (resetAfterSeconds %v), so the next restart is the first (back-off %v, not %v), but the next instance began %v after its end, later than the reaction tolerance %v allows",
						prev.n+1, prev.exited.Time.Sub(prev.started.Time).Round(time.Millisecond), reset, first, rp.backoff(i), gap.Round(time.Millisecond), rp.opts.Reaction)})
			}
		}
	}
	return out
}

// checkRestartIsolation judges a restart's effect on the other containers (RST-007): no signal
// reaches another container's instance while a container is between an end its policy restarts
// and its next start, unless the stop sequence has begun, a stop was requested, that instance
// is killed for its own health, a notifier is delivered to it, or an update was accepted.
func checkRestartIsolation(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		for _, in := range c.insts {
			for _, s := range in.signals {
				if !before(s, rp.terminating) || (len(rp.stops) > 0 && rp.stops[0].Seq < s.Seq) {
					continue
				}
				if k := in.healthKill(); k != nil && k.Seq < s.Seq {
					continue
				}
				if rp.notifying(c.name, s) || (len(rp.accepted) > 0 && !s.Time.Before(rp.accepted[0].u.Issued)) {
					continue // a delivery's signal, or an update's restart
				}
				if r := rp.restarting(c, s); r != nil {
					out = append(out, Finding{Rule: spec.RST007, Seq: s.Seq, Container: c.name,
						Message: fmt.Sprintf("the runtime sent %s %s while %s was being restarted (its instance ended at #%d)", c.name, s.Signal.Name, r.c.name, r.exited.Seq)})
				}
			}
		}
	}
	return out
}

// restarting is another container's instance that ended before the event with its next
// instance started after it: a restart under way. Nil if none.
func (rp *replay) restarting(not *container, e *runtimev1.Event) *instance {
	for _, c := range rp.order {
		if c == not || c.kind == kindDefer {
			continue
		}
		st := c.startedInsts()
		for i := 0; i+1 < len(st); i++ {
			if before(st[i].exited, e) && before(e, st[i+1].started) {
				return st[i]
			}
		}
	}
	return nil
}

// notifying says a notifier delivery to the container was under way at the event: a
// NotifierStarted for it before the event with no NotifierFinished of that notifier between.
func (rp *replay) notifying(name string, e *runtimev1.Event) bool {
	open := map[string]int{}
	for i := range rp.ev {
		x := &rp.ev[i]
		if x.Seq >= e.Seq {
			break
		}
		if x.Container != name {
			continue
		}
		switch x.Type {
		case runtimev1.EventNotifierStarted:
			open[x.Notifier]++
		case runtimev1.EventNotifierFinished:
			open[x.Notifier]--
		}
	}
	for _, n := range open {
		if n > 0 {
			return true
		}
	}
	return false
}
