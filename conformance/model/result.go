package model

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
)

// Rules of the pod's end: when the exit policy fires (EXIT-002..007), the termination reason
// (EXIT-006, EXIT-020, FORCE-006, DL-002, INIT-003) and the result (EXIT-014..018).

// Termination reasons (terminology), the values of status.reason.
const (
	termStopped   = "Stopped"
	termCompleted = "Completed"
	termFailed    = "Failed"
	termDeadline  = "DeadlineExceeded"
	termEvicted   = "Evicted"
	termForced    = "Forced"
)

// Reasons of an instance's end the API has no constant for.
const (
	reasonExitStatusLost = "ExitStatusLost"
	reasonUnhealthy      = "Unhealthy"
)

// terminal is one terminal end of a main or regular init container: an instance's exit or a
// main container's DependencyFailed.
type terminal struct {
	c                   *container
	in                  *instance // nil for DependencyFailed
	at                  *runtimev1.Event
	canFail, canSucceed bool
}

// policyTerminals are the main containers' ends before the stop sequence that their restart
// policy does not restart, in event order (the ends the exit policy counts: EXIT-002).
func (rp *replay) policyTerminals() []terminal {
	var out []terminal
	for _, c := range rp.kind(kindMain) {
		if c.depFailed != nil && c.firstStart() == nil {
			out = append(out, terminal{c: c, at: c.depFailed, canFail: true})
		}
		for _, in := range c.insts {
			if in.exited == nil || in.started == nil || !before(in.exited, rp.terminating) {
				continue
			}
			fail, succeed := rp.failure(in)
			terminalEnd := c.policy == v1alpha1.RestartPolicyNever || (c.policy == v1alpha1.RestartPolicyOnFailure && !fail)
			if terminalEnd {
				out = append(out, terminal{c: c, in: in, at: in.exited, canFail: fail, canSucceed: succeed})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].at.Seq < out[j].at.Seq })
	return out
}

// firePoint is the terminal end at which the exit policy fires, and whether a main container had
// failed terminally by then (nil when the policy never fires before the stop sequence).
func (rp *replay) firePoint() (*terminal, bool) {
	mains := rp.kind(kindMain)
	done := map[string]bool{}
	failed := false
	for _, t := range rp.policyTerminals() {
		done[t.c.name] = true
		failed = failed || t.canFail
		all := len(done) == len(mains)
		switch rp.pod.Spec.ExitPolicy {
		case v1alpha1.ExitPolicyAny:
			return &t, failed
		case v1alpha1.ExitPolicyAnyFailure:
			if t.canFail || all {
				return &t, failed
			}
		default:
			if all {
				return &t, failed
			}
		}
	}
	return nil, false
}

// firstCause is the first event that may begin the stop sequence other than the exit policy:
// a stop request or PodTerminating itself.
func (rp *replay) firstCause() *runtimev1.Event {
	c := rp.terminating
	if len(rp.stops) > 0 && before(rp.stops[0], c) {
		c = rp.stops[0]
	}
	return c
}

func checkExitPolicy(rp *replay) []Finding {
	var out []Finding
	fp, _ := rp.firePoint()
	cause := rp.firstCause()
	id := map[v1alpha1.ExitPolicy]string{v1alpha1.ExitPolicyAll: spec.EXIT003, v1alpha1.ExitPolicyAny: spec.EXIT004, v1alpha1.ExitPolicyAnyFailure: spec.EXIT005}[rp.pod.Spec.ExitPolicy]
	if fp != nil && before(fp.at, cause) && len(rp.fired) == 0 && rp.finished != nil {
		out = append(out, Finding{Rule: id, Seq: fp.at.Seq, Container: fp.c.name,
			Message: fmt.Sprintf("exit policy %s must fire at this terminal end, but no PolicyFired is recorded", rp.pod.Spec.ExitPolicy)})
	}
	if len(rp.fired) > 1 {
		out = append(out, Finding{Rule: spec.EXIT007, Seq: rp.fired[1].Seq, Message: fmt.Sprintf("the exit policy fired %d times", len(rp.fired))})
	}
	if len(rp.fired) > 0 {
		f := rp.fired[0]
		switch {
		case rp.terminating != nil && rp.terminating.Seq < f.Seq:
			out = append(out, Finding{Rule: spec.EXIT007, Seq: f.Seq, Message: fmt.Sprintf("the exit policy fired after the stop sequence began (PodTerminating #%d)", rp.terminating.Seq)})
		case fp == nil || !before(fp.at, f):
			out = append(out, Finding{Rule: spec.EXIT002, Seq: f.Seq,
				Message: fmt.Sprintf("the exit policy %s fired, but the terminal ends before it do not fire it (%s)", rp.pod.Spec.ExitPolicy, rp.describeTerminals(f))})
		}
		if fp != nil && before(fp.at, f) && f.Time.After(fp.at.Time.Add(rp.opts.Reaction)) {
			out = append(out, Finding{Rule: id, Seq: f.Seq, Container: fp.c.name,
				Message: fmt.Sprintf("the exit policy fired %v after the terminal end that fires it (#%d), later than the reaction tolerance %v",
					f.Time.Sub(fp.at.Time).Round(time.Millisecond), fp.at.Seq, rp.opts.Reaction)})
		}
		if f.Reason != "" && f.Reason != string(rp.pod.Spec.ExitPolicy) {
			out = append(out, Finding{Rule: id, Seq: f.Seq, Message: fmt.Sprintf("PolicyFired has reason %s, the pod's exitPolicy is %s", f.Reason, rp.pod.Spec.ExitPolicy)})
		}
	}
	return out
}

func (rp *replay) describeTerminals(upTo *runtimev1.Event) string {
	var parts []string
	for _, t := range rp.policyTerminals() {
		if before(t.at, upTo) {
			parts = append(parts, fmt.Sprintf("%s at #%d", t.c.name, t.at.Seq))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// terminationReasons are the termination reasons the history allows, each with the requirement
// that names it: one per cause recorded before PodTerminating (a stop request recorded while an
// exit was being handled leaves both readings).
func (rp *replay) terminationReasons() map[string]string {
	out := map[string]string{}
	if rp.terminating == nil {
		return out
	}
	if len(rp.fired) > 0 && before(rp.fired[0], rp.terminating) {
		_, failed := rp.firePoint()
		if failed {
			out[termFailed] = spec.EXIT006
		} else {
			out[termCompleted] = spec.EXIT006
		}
	}
	for _, s := range rp.stops {
		if !before(s, rp.terminating) {
			continue
		}
		switch {
		case isForced(s):
			out[termForced] = spec.FORCE006
		case s.Reason == termDeadline:
			out[termDeadline] = spec.DL002
		case s.Reason == termEvicted:
			out[termEvicted] = spec.VOL016
		default:
			out[termStopped] = spec.EXIT020
		}
	}
	if in := rp.initTerminalFailure(); in != nil && before(in.exited, rp.terminating) {
		out[termFailed] = spec.INIT003
	}
	return out
}

func checkTerminationReason(rp *replay) []Finding {
	want := rp.terminationReasons()
	if len(want) == 0 {
		return nil
	}
	ids := map[string]bool{}
	for _, id := range want {
		ids[id] = true
	}
	rule := spec.EXIT020
	if len(ids) == 1 {
		for id := range ids {
			rule = id
		}
	}
	var out []Finding
	if rp.final != nil && rp.final.Reason != "" {
		if _, ok := want[rp.final.Reason]; !ok {
			out = append(out, Finding{Rule: rule, Message: fmt.Sprintf("status.reason is %s; the causes before PodTerminating give %s", rp.final.Reason, orList(want))})
		}
	}
	if rp.finished != nil && rp.finished.Reason != "" {
		if _, ok := want[rp.finished.Reason]; !ok {
			out = append(out, Finding{Rule: rule, Seq: rp.finished.Seq, Message: fmt.Sprintf("PodFinished has reason %s; the causes before PodTerminating give %s", rp.finished.Reason, orList(want))})
		}
	}
	return out
}

// result is one pod result the history allows.
type result struct {
	phase     v1alpha1.PodPhase
	exitCode  int32
	decidedBy string
}

// endCode is the pod exit code a deciding end gives (EXIT-017).
func endCode(t terminal) int32 {
	if t.in == nil {
		return 1
	}
	e := t.in.exited
	switch {
	case e.ExitCode != nil:
		return *e.ExitCode
	case e.Signal != nil:
		return 128 + e.Signal.Number
	}
	return 1
}

// results are the pod results the history allows for termination reason reason, or nil when
// the history has too many ambiguous ends to enumerate.
func (rp *replay) results(reason string) []result {
	var ends []terminal
	allStarted := true
	for _, c := range append(rp.kind(kindInit), rp.kind(kindMain)...) {
		if c.kind == kindMain && c.firstStart() == nil {
			allStarted = false
		}
		if end := rp.terminalEnd(c); end != nil {
			fail, succeed := rp.failure(end)
			ends = append(ends, terminal{c: c, in: end, at: end.exited, canFail: fail, canSucceed: succeed})
		} else if c.depFailed != nil {
			ends = append(ends, terminal{c: c, at: c.depFailed, canFail: true})
		}
	}
	sort.Slice(ends, func(i, j int) bool { return ends[i].at.Seq < ends[j].at.Seq })
	var amb []int
	for i, t := range ends {
		if t.canFail && t.canSucceed {
			amb = append(amb, i)
		}
	}
	if len(amb) > 6 {
		return nil
	}
	fp, _ := rp.firePoint()
	var out []result
	for mask := 0; mask < 1<<len(amb); mask++ {
		fails := make([]bool, len(ends))
		for i, t := range ends {
			fails[i] = t.canFail
		}
		for k, i := range amb {
			fails[i] = mask&(1<<k) != 0
		}
		first := slices.Index(fails, true)
		r := result{phase: v1alpha1.PodSucceeded}
		if reason == termDeadline || reason == termEvicted || reason == termForced || !allStarted || first >= 0 {
			r.phase = v1alpha1.PodFailed
		}
		switch {
		case r.phase == v1alpha1.PodFailed && first >= 0:
			r.decidedBy, r.exitCode = ends[first].c.name, endCode(ends[first])
		case r.phase == v1alpha1.PodFailed:
			r.exitCode = 1
		case fp != nil && (reason == termCompleted || reason == termFailed):
			r.decidedBy, r.exitCode = fp.c.name, endCode(*fp)
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// terminalEnd is the instance whose end is the container's terminal exit: the first that its
// restart policy does not restart or that ended once the stop sequence had begun, else the last
// (a runtime that restarts what it must not is RST-003's finding, not a different result).
func (rp *replay) terminalEnd(c *container) *instance {
	var last *instance
	for _, in := range c.insts {
		if in.exited == nil {
			continue
		}
		last = in
		if !before(in.exited, rp.terminating) {
			return in
		}
		if can, _ := rp.restartWanted(in); !can {
			return in
		}
	}
	return last
}

func checkResult(rp *replay) []Finding {
	reason := ""
	switch {
	case rp.final != nil && rp.final.Reason != "":
		reason = rp.final.Reason
	case rp.finished != nil:
		reason = rp.finished.Reason
	}
	if rp.finished == nil || reason == "" {
		return nil
	}
	allowed := rp.results(reason)
	if allowed == nil {
		return nil
	}
	var out []Finding
	judge := func(where string, seq int64, phase v1alpha1.PodPhase, code *int32, decided string) {
		var byPhase []result
		for _, r := range allowed {
			if r.phase == phase {
				byPhase = append(byPhase, r)
			}
		}
		if len(byPhase) == 0 {
			out = append(out, Finding{Rule: spec.EXIT014, Seq: seq, Message: fmt.Sprintf("%s phase is %s; the history gives %s", where, phase, describeResults(allowed))})
			return
		}
		var byDecided []result
		for _, r := range byPhase {
			if r.decidedBy == decided {
				byDecided = append(byDecided, r)
			}
		}
		if len(byDecided) == 0 {
			id := spec.EXIT015
			if phase == v1alpha1.PodSucceeded {
				id = spec.EXIT016
			}
			out = append(out, Finding{Rule: id, Seq: seq, Message: fmt.Sprintf("%s decidedBy is %q; the history gives %s", where, decided, describeResults(byPhase))})
			return
		}
		if code == nil {
			return
		}
		for _, r := range byDecided {
			if r.exitCode == *code {
				return
			}
		}
		id := spec.EXIT018
		if decided != "" {
			id = spec.EXIT017
		}
		out = append(out, Finding{Rule: id, Seq: seq, Message: fmt.Sprintf("%s exitCode is %d; the history gives %s", where, *code, describeResults(byDecided))})
	}
	judge("PodFinished's", rp.finished.Seq, rp.finished.Phase, rp.finished.ExitCode, rp.finished.DecidedBy)
	if rp.final != nil {
		judge("the final status'", 0, rp.final.Phase, rp.final.ExitCode, rp.final.DecidedBy)
	}
	return out
}

func describeResults(rs []result) string {
	var parts []string
	for _, r := range rs {
		d := r.decidedBy
		if d == "" {
			d = "nobody"
		}
		parts = append(parts, fmt.Sprintf("%s %d decided by %s", r.phase, r.exitCode, d))
	}
	return strings.Join(parts, " or ")
}
