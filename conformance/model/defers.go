package model

import (
	"fmt"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Rules of defers' own outcomes (DEFER-*): which defers run in a stop sequence, how an attempt
// ends and counts, retries inside the limit of a run, what a failed run does to the later defers
// and to the condition DeferCompleted, and what it must not do to the pod. None is judged on a
// forced stop sequence (FORCE-004 says what happens to defers there).

// Skip reasons of a defer container (DEFER-006, DEFER-009).
const (
	skipBudgetExhausted = "BudgetExhausted"
	skipAborted         = "Aborted"
	// deferEnvReason is the environment variable that holds the termination reason (DEFER-003).
	deferEnvReason = "PODSPEC_TERMINATION_REASON"
)

// deferSequence is the defers in the order the stop sequence runs them: BeforeStop, then
// AfterStop, each in list order.
func (rp *replay) deferSequence() []*container {
	return append(rp.defersOf(v1alpha1.DeferBeforeStop), rp.defersOf(v1alpha1.DeferAfterStop)...)
}

// skipReason is why a defer never ran as its ContainerSkipped event or its final state says
// ("" when neither says it was skipped).
func (rp *replay) skipReason(c *container) string {
	if e := rp.firstEvent(runtimev1.EventContainerSkipped, c.name); e != nil {
		return e.Reason
	}
	if cs := rp.status(c.name); cs != nil && cs.State.Skipped != nil {
		return cs.State.Skipped.Reason
	}
	return ""
}

// attemptEnd is how one attempt of a defer ended, as DEFER-007 counts it.
type attemptEnd int

const (
	attemptUnknown   attemptEnd = iota // not ended, or ended unobserved (ExitStatusLost)
	attemptSucceeded                   // exit code 0
	attemptExitCode                    // a non-zero exit code
	attemptOther                       // killed by a signal, killed at its limit, or never started
)

func deferAttempt(in *instance) attemptEnd {
	e := in.exited
	switch {
	case e == nil || e.Reason == reasonExitStatusLost:
		return attemptUnknown
	case e.Signal != nil || e.Reason == v1alpha1.ReasonTimeout || e.Reason == v1alpha1.ReasonStartError:
		return attemptOther
	case e.ExitCode != nil && *e.ExitCode != 0:
		return attemptExitCode
	case e.ExitCode != nil:
		return attemptSucceeded
	}
	return attemptUnknown
}

// runOutcome is a defer's run as the model counts it: whether it ran, failed, and how its last
// attempt ended; known is false when the history does not say (an attempt still open or lost).
type runOutcome struct {
	ran, failed, known bool
	last               attemptEnd
}

func (rp *replay) runOf(c *container) runOutcome {
	if len(c.insts) == 0 {
		return runOutcome{known: true}
	}
	last := deferAttempt(c.last())
	return runOutcome{ran: true, failed: last == attemptExitCode || last == attemptOther, known: last != attemptUnknown, last: last}
}

// deferCondition is the final status' condition DeferCompleted, or nil.
func (rp *replay) deferCondition() *v1alpha1.PodCondition {
	if rp.final == nil {
		return nil
	}
	for i := range rp.final.Conditions {
		if rp.final.Conditions[i].Type == v1alpha1.PodDeferCompleted {
			return &rp.final.Conditions[i]
		}
	}
	return nil
}

// countedSuccess says a failed run's consequence is missing because the runtime counted the run
// a success (DEFER-007) rather than because it ignored the failure: the run failed otherwise
// than by an exit code, and DeferCompleted is True.
func (rp *replay) countedSuccess(o runOutcome) bool {
	cond := rp.deferCondition()
	return o.last == attemptOther && cond != nil && cond.Status == v1alpha1.ConditionTrue
}

// runStart is the earliest moment the run of a defer can have begun: its first event.
func runStart(c *container) *runtimev1.Event { return c.insts[0].earliest() }

// earliestLimit is the earliest the limit of the defer's run can be (DEFER-005..008): its start
// plus timeoutSeconds, the earliest reserve point (BeforeStop), the earliest budget end.
func (rp *replay) earliestLimit(c *container) time.Time {
	end, budget := rp.earliestBudgetEnd()
	limit := end
	if c.dspec.Phase == v1alpha1.DeferBeforeStop {
		limit = end.Add(-stopWindow(budget))
	}
	if t := c.dspec.TimeoutSeconds; t != nil && len(c.insts) > 0 {
		if own := runStart(c).Time.Add(time.Duration(*t) * time.Second); own.Before(limit) {
			limit = own
		}
	}
	return limit
}

// latestLimit is the latest the limit of the defer's run can be: its ContainerStarted (the
// runtime began the run no later) plus timeoutSeconds, or the latest budget end.
func (rp *replay) latestLimit(c *container) time.Time {
	limit := rp.latestBudgetEnd()
	if t := c.dspec.TimeoutSeconds; t != nil {
		if s := c.firstStart(); s != nil {
			if own := s.Time.Add(time.Duration(*t) * time.Second); own.Before(limit) {
				limit = own
			}
		}
	}
	return limit
}

// deferJudged says the defers of this history are judged: the stop sequence began and was not
// forced.
func (rp *replay) deferJudged() bool { return rp.terminating != nil && rp.forced() == nil }

// checkDefersRun: DEFER-002, every defer of a stop sequence that is not forced runs, unless it is
// skipped because its turn came at or after its limit (recorded no sooner than the earliest
// limit) or because an earlier run failed under onFailure: Abort (DEFER-009's).
func checkDefersRun(rp *replay) []Finding {
	if !rp.deferJudged() || rp.finished == nil {
		return nil
	}
	var out []Finding
	for _, c := range rp.deferSequence() {
		if len(c.insts) > 0 {
			continue
		}
		reason := rp.skipReason(c)
		switch reason {
		case skipAborted:
			continue
		case skipBudgetExhausted:
			at := rp.firstEvent(runtimev1.EventContainerSkipped, c.name)
			if at == nil {
				at = rp.finished
			}
			limit := rp.earliestLimit(c)
			if !at.Time.Before(limit.Add(-rp.opts.EarlyMargin)) {
				continue
			}
			out = append(out, Finding{Rule: spec.DEFER002, Seq: at.Seq, Container: c.name,
				Message: fmt.Sprintf("skipped with reason BudgetExhausted %v before the earliest limit of its run; a stop sequence that is not forced runs it",
					limit.Sub(at.Time).Round(time.Millisecond))})
		case "":
			out = append(out, Finding{Rule: spec.DEFER002, Seq: rp.finished.Seq, Container: c.name,
				Message: "neither started nor skipped in a stop sequence that was not forced"})
		default:
			out = append(out, Finding{Rule: spec.DEFER002, Container: c.name,
				Message: fmt.Sprintf("skipped with reason %s in a stop sequence that was not forced", reason)})
		}
	}
	return out
}

// checkDeferEnv: DEFER-003, the termination reason a defer's workload reports in its
// environment is one the history allows.
func checkDeferEnv(rp *replay) []Finding {
	want := rp.terminationReasons()
	if !rp.deferJudged() || len(want) == 0 {
		return nil
	}
	var out []Finding
	for _, c := range rp.kind(kindDefer) {
		for _, p := range reports(rp.probe, c.name, probe.RoleWorkload, "") {
			if p.Type != probe.TypeReport || p.Report == nil || p.Report.Env == nil {
				continue
			}
			got, ok := p.Report.Env[deferEnvReason]
			if _, allowed := want[got]; !ok || !allowed {
				out = append(out, Finding{Rule: spec.DEFER003, Container: c.name,
					Message: fmt.Sprintf("the defer saw %s=%q; the history's termination reason is %s", deferEnvReason, got, orList(want))})
				break
			}
		}
	}
	return out
}

// checkDeferNotRerun: DEFER-004, no attempt after one that ended the run (a success, any end
// under restartPolicy Never, a kill at its limit); after a supervisor's loss, DEFER-014 (the
// resumed sequence starts no defer whose run had ended).
func checkDeferNotRerun(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.kind(kindDefer) {
		for i, in := range c.insts {
			end := deferAttempt(in)
			ended := end == attemptSucceeded || (end != attemptUnknown && (c.policy != v1alpha1.RestartPolicyOnFailure || in.exited.Reason == v1alpha1.ReasonTimeout))
			if !ended || i+1 == len(c.insts) {
				continue
			}
			next := c.insts[i+1]
			rule := spec.DEFER004
			if rp.lost != "" {
				rule = spec.DEFER014
			}
			at := next.started
			if at == nil {
				at = next.created
			}
			var seq int64
			if at != nil {
				seq = at.Seq
			}
			out = append(out, Finding{Rule: rule, Seq: seq, Container: c.name,
				Message: fmt.Sprintf("started again (instance %d) after its run had ended with %s", i+2, describeEnd(in))})
			break
		}
	}
	return out
}

// checkDeferTimeout: DEFER-005, a defer the runtime killed with SIGKILL ends with reason Timeout,
// and one still running past the latest limit of its own timeoutSeconds + Reaction was killed by
// then.
func checkDeferTimeout(rp *replay) []Finding {
	if !rp.deferJudged() {
		return nil
	}
	var out []Finding
	for _, c := range rp.kind(kindDefer) {
		for _, in := range c.startedInsts() {
			e := in.exited
			if e == nil {
				continue
			}
			kill := signalBeforeEnd(in, "SIGKILL")
			if kill != nil && e.Signal != nil && e.Signal.Name == "SIGKILL" && e.Reason != v1alpha1.ReasonTimeout {
				out = append(out, Finding{Rule: spec.DEFER005, Seq: e.Seq, Container: c.name,
					Message: fmt.Sprintf("killed by the runtime's SIGKILL (#%d) at the limit of its run, but recorded with reason %s, not Timeout", kill.Seq, e.Reason)})
			}
			if c.dspec.TimeoutSeconds == nil {
				continue
			}
			due := rp.latestLimit(c).Add(rp.opts.Reaction)
			if e.Time.After(due) && (kill == nil || kill.Time.After(due)) {
				out = append(out, Finding{Rule: spec.DEFER005, Seq: e.Seq, Container: c.name,
					Message: fmt.Sprintf("instance %d ran %v past the limit of its run (timeoutSeconds %d) and was sent no SIGKILL within the reaction tolerance %v",
						in.n+1, e.Time.Sub(due.Add(-rp.opts.Reaction)).Round(time.Millisecond), *c.dspec.TimeoutSeconds, rp.opts.Reaction)})
			}
		}
	}
	return out
}

// checkDeferLimit: DEFER-006, once a defer was killed at the limit its phase shares (no
// timeoutSeconds of its own explains the kill: the reserve point or the budget end), the turn of
// every later defer of that phase comes after that limit: none starts.
func checkDeferLimit(rp *replay) []Finding {
	if !rp.deferJudged() {
		return nil
	}
	var out []Finding
	for _, phase := range []v1alpha1.DeferPhase{v1alpha1.DeferBeforeStop, v1alpha1.DeferAfterStop} {
		defers := rp.defersOf(phase)
		for i, a := range defers {
			kill := rp.phaseLimitKill(a)
			if kill == nil {
				continue
			}
			for _, b := range defers[i+1:] {
				for _, in := range b.insts {
					if in.started != nil && kill.Seq < in.started.Seq {
						out = append(out, Finding{Rule: spec.DEFER006, Seq: in.started.Seq, Container: b.name,
							Message: fmt.Sprintf("started after %s was killed at the limit of the %s defers (#%d): its turn came at or after that limit, so it is skipped with BudgetExhausted", a.name, phase, kill.Seq)})
					}
				}
			}
			break
		}
	}
	return out
}

// phaseLimitKill is the runtime's SIGKILL that ended a defer's run at the limit of its phase (the
// reserve point or the budget end), or nil: a SIGKILL before its exit that its own
// timeoutSeconds, counted from its first event, does not explain within Reaction.
func (rp *replay) phaseLimitKill(c *container) *runtimev1.Event {
	for _, in := range c.startedInsts() {
		s := signalBeforeEnd(in, "SIGKILL")
		if s == nil {
			continue
		}
		if t := c.dspec.TimeoutSeconds; t != nil && !runStart(c).Time.Add(time.Duration(*t)*time.Second).After(s.Time.Add(rp.opts.Reaction)) {
			return nil
		}
		return s
	}
	return nil
}

// checkDeferRetries: DEFER-008 and DEFER-017, under restartPolicy OnFailure a failed attempt is
// retried exactly when the back-off delay ends before the limit of the run: no retry missing whose
// moment (exit + back-off + Reaction) came before the earliest limit, none made whose back-off,
// counted from the workload's own end report (or its start), ended at or after the latest limit.
func checkDeferRetries(rp *replay) []Finding {
	if !rp.deferJudged() {
		return nil
	}
	var out []Finding
	for _, c := range rp.kind(kindDefer) {
		if c.policy != v1alpha1.RestartPolicyOnFailure {
			continue
		}
		for i, in := range c.insts {
			end := deferAttempt(in)
			if (end != attemptExitCode && end != attemptOther) || in.exited.Reason == v1alpha1.ReasonTimeout {
				continue
			}
			delay := rp.backoff(i + 1)
			if i+1 < len(c.insts) {
				// The attempt ended no sooner than its workload's end report, or its start.
				from := in.earliest().Time
				if _, _, at, ok := in.ended(); ok {
					from = at
				}
				if limit := rp.latestLimit(c); !from.Add(delay).Before(limit) {
					out = append(out, Finding{Rule: spec.DEFER017, Seq: in.exited.Seq, Container: c.name,
						Message: fmt.Sprintf("retried after attempt %d although its back-off %v ended %v at or after the limit of its run", i+1, delay, from.Add(delay).Sub(limit).Round(time.Millisecond))})
				}
				continue
			}
			if due := in.exited.Time.Add(delay + rp.opts.Reaction); due.Before(rp.earliestLimit(c)) && rp.finished != nil {
				rule := spec.DEFER008
				if rp.countedSuccess(runOutcome{ran: true, failed: true, known: true, last: end}) {
					rule = spec.DEFER007
				}
				out = append(out, Finding{Rule: rule, Seq: in.exited.Seq, Container: c.name,
					Message: fmt.Sprintf("attempt %d failed (%s) and was not retried, although its back-off %v ended before the limit of its run", i+1, describeEnd(in), delay)})
			}
		}
	}
	return out
}

// checkDeferFailures: DEFER-009 and DEFER-010, a failed run under onFailure: Abort skips every
// later defer with reason Aborted, under Continue the next one runs; DEFER-007 when the missing
// consequence comes from a failure the runtime counted a success (DeferCompleted True).
func checkDeferFailures(rp *replay) []Finding {
	if !rp.deferJudged() || rp.finished == nil {
		return nil
	}
	var out []Finding
	seq := rp.deferSequence()
	for i, c := range seq {
		if o := rp.runOf(c); !o.known || !o.failed || i+1 == len(seq) {
			continue
		}
		if c.dspec.OnFailure == v1alpha1.DeferAbort {
			return rp.notAborted(c, seq[i+1:])
		}
		// Continue: the next defer's turn comes (it runs, or is skipped for its limit).
		if next := seq[i+1]; len(next.insts) == 0 && rp.skipReason(next) == skipAborted {
			out = append(out, Finding{Rule: spec.DEFER010, Container: next.name,
				Message: fmt.Sprintf("skipped with reason Aborted after %s's run failed under onFailure: Continue", c.name)})
		}
	}
	return out
}

// notAborted reports each later defer that a failed run of c under onFailure: Abort did not skip
// with reason Aborted (DEFER-009, or DEFER-007 when the runtime counted the run a success).
func (rp *replay) notAborted(c *container, later []*container) []Finding {
	rule := spec.DEFER009
	if rp.countedSuccess(rp.runOf(c)) {
		rule = spec.DEFER007
	}
	var out []Finding
	for _, d := range later {
		if len(d.insts) == 0 && rp.skipReason(d) == skipAborted {
			continue
		}
		out = append(out, Finding{Rule: rule, Container: d.name,
			Message: fmt.Sprintf("not skipped with reason Aborted after %s's run failed (%s) under onFailure: Abort", c.name, describeEnd(c.last()))})
	}
	return out
}

// checkDeferCondition: DEFER-012, DeferCompleted on the final status: True when every run
// succeeded, else False with DeferFailed when a run failed and DeferSkipped otherwise; DEFER-007
// when it is True although a run failed otherwise than by an exit code.
func checkDeferCondition(rp *replay) []Finding {
	if !rp.deferJudged() || rp.final == nil || rp.finished == nil {
		return nil
	}
	failed, skipped, other := false, false, true
	for _, c := range rp.kind(kindDefer) {
		o := rp.runOf(c)
		switch {
		case !o.known:
			return nil
		case o.failed:
			failed = true
			other = other && o.last == attemptOther
		case !o.ran:
			skipped = true
		}
	}
	status, reason := v1alpha1.ConditionTrue, ""
	switch {
	case failed:
		status, reason = v1alpha1.ConditionFalse, "DeferFailed"
	case skipped:
		status, reason = v1alpha1.ConditionFalse, "DeferSkipped"
	}
	cond := rp.deferCondition()
	if cond != nil && cond.Status == status && (status == v1alpha1.ConditionTrue || cond.Reason == reason) {
		return nil
	}
	got := "absent"
	if cond != nil {
		got = fmt.Sprintf("%s (reason %q)", cond.Status, cond.Reason)
	}
	rule := spec.DEFER012
	if failed && other && cond != nil && cond.Status == v1alpha1.ConditionTrue {
		rule = spec.DEFER007
	}
	return []Finding{{Rule: rule, Message: fmt.Sprintf("condition DeferCompleted is %s; the defers' runs give %s %s", got, status, reason)}}
}

// checkDeferNoEffect: DEFER-011, a defer never decides the pod's result.
func checkDeferNoEffect(rp *replay) []Finding {
	var out []Finding
	for _, d := range []struct {
		by  string
		seq int64
	}{{finalDecidedBy(rp.final), 0}, {finishedDecidedBy(rp.finished), seqOf(rp.finished)}} {
		if c := rp.byName[d.by]; c != nil && c.kind == kindDefer {
			out = append(out, Finding{Rule: spec.DEFER011, Seq: d.seq, Container: c.name,
				Message: "the pod's decidedBy names a defer container: a defer's result does not decide the pod"})
		}
	}
	return out
}

func finalDecidedBy(st *v1alpha1.PodStatus) string {
	if st == nil {
		return ""
	}
	return st.DecidedBy
}

func finishedDecidedBy(e *runtimev1.Event) string {
	if e == nil {
		return ""
	}
	return e.DecidedBy
}

func seqOf(e *runtimev1.Event) int64 {
	if e == nil {
		return 0
	}
	return e.Seq
}
