package model

import (
	"fmt"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/spec"
)

// Rules of a supervisor's loss (docs/spec/runtime.md, SUP-*): what adopting a pod must keep. They
// judge the crashes the harness made (History.Crashes): between a crash and the next verb that
// touches the pod nothing supervises it, and the adopter continues from the recorded state.

// Crash is one `crash` the harness ran on the pod: when it was issued and when it returned (the
// pod's supervisor gone), on the events' clock.
type Crash struct {
	Issued, Returned time.Time
}

// runningAcross is the container's instance that ran across the crash (started before it was
// issued, not ended before it returned), nil if none.
func (c *container) runningAcross(k *Crash) *instance {
	for _, in := range c.insts {
		if in.started != nil && in.started.Time.Before(k.Issued) && (in.exited == nil || in.exited.Time.After(k.Returned)) {
			return in
		}
	}
	return nil
}

// SUP-004: the adopter keeps every instance that ran at the loss. An instance that ran across a
// crash and whose workload reported no end of its own must not end after it, nor be followed by a
// new instance of its container, unless the stop sequence, a failed probe or hook, an update, a
// notifier's signal or a stop signal or SIGKILL the runtime recorded explains it.
func checkAdoptionKeepsInstances(rp *replay) []Finding {
	var out []Finding
	for i := range rp.crashes {
		k := &rp.crashes[i]
		for _, c := range rp.order {
			if c.kind == kindDefer {
				continue
			}
			in := c.runningAcross(k)
			if in == nil || len(in.work) == 0 {
				continue
			}
			end := in.exited
			var next *instance
			if in.n+1 < len(c.insts) {
				next = c.insts[in.n+1]
			}
			if end == nil || (next != nil && next.started != nil && next.started.Seq < end.Seq) {
				if next == nil || next.started == nil {
					continue
				}
				end = next.started // replaced before any end of it was recorded
			}
			if end.Reason == "OOMKilled" {
				continue
			}
			if _, _, _, own := in.ended(); own || in.killedForHealth() || before(rp.terminating, end) ||
				in.signalled() || rp.updatedBetween(k.Issued, end.Time) || rp.delivering(c, k.Issued, end) {
				continue
			}
			what := fmt.Sprintf("ended after it (%s)", describeEnd(in))
			if end != in.exited {
				what = "was replaced after it by a new instance before any end of it was recorded"
			}
			out = append(out, Finding{Rule: spec.SUP004, Seq: end.Seq, Container: c.name,
				Message: fmt.Sprintf("the instance that ran when the supervisor was lost %s, its workload reporting no end of its own, before any stop, probe failure or update", what)})
		}
	}
	return out
}

// signalled says the runtime recorded sending the instance its stop signal or SIGKILL before it
// ended (a stop, a replacement by an update: its end has a cause the history shows).
func (in *instance) signalled() bool {
	for _, s := range in.signals {
		if s.Signal != nil && (s.Signal.Name == "SIGKILL" || s.Signal.Name == in.c.stopSignal()) && before(s, in.exited) {
			return true
		}
	}
	return false
}

// updatedBetween says an accepted update was issued between a and b.
func (rp *replay) updatedBetween(a, b time.Time) bool {
	for i := range rp.updates {
		if u := &rp.updates[i]; u.Accepted && u.Issued.After(a) && u.Issued.Before(b) {
			return true
		}
	}
	return false
}

// SUP-005: an instance that ended after a crash, whose workload reported its own exit code or
// signal, is recorded with that end or with neither exitCode nor signal (its status lost): never
// with an end that did not happen. (Which reason a lost status gets, ExitStatusLost or one that
// comes first in STAT-006's table such as Stopped, is not judged here.)
func checkLostExits(rp *replay) []Finding {
	if len(rp.crashes) == 0 {
		return nil
	}
	first := rp.crashes[0].Issued
	var out []Finding
	for _, c := range rp.order {
		for _, in := range c.insts {
			e := in.exited
			code, crash, at, own := in.ended()
			if e == nil || !own || at.Before(first) || e.Reason == reasonExitStatusLost {
				continue
			}
			var wrong bool
			switch {
			case crash != "":
				wrong = e.ExitCode != nil || (e.Signal != nil && e.Signal.Name != crash)
			case code != nil:
				wrong = e.Signal != nil || (e.ExitCode != nil && *e.ExitCode != int32(*code))
			}
			if wrong {
				out = append(out, Finding{Rule: spec.SUP005, Seq: e.Seq, Container: c.name,
					Message: fmt.Sprintf("recorded as %s after the supervisor's loss, but its workload reported %s: an end the runtime cannot recover is ExitStatusLost", describeEnd(in), ownEnd(code, crash))})
			}
		}
	}
	return out
}

func ownEnd(code *int, crash string) string {
	if crash != "" {
		return "dying of " + crash
	}
	return fmt.Sprintf("exit code %d", *code)
}

// SUP-007: adoption does not run again an init container whose exit 0 was recorded.
func checkAdoptionNotRerun(rp *replay) []Finding {
	if len(rp.crashes) == 0 {
		return nil
	}
	var out []Finding
	for _, c := range rp.kind(kindInit) {
		for _, in := range c.startedInsts() {
			if in.n > 0 && in.started.Time.After(rp.crashes[0].Issued) && c.exitedZeroBefore(in.started) {
				out = append(out, Finding{Rule: spec.SUP007, Seq: in.started.Seq, Container: c.name,
					Message: "started again after the supervisor's loss, although its exit 0 had been recorded"})
			}
		}
	}
	return out
}

// SUP-009: the event sequence of a pod whose supervisor was lost has no gap and no repeat: each
// seq follows the one before by one, and no instance's start or exit is recorded twice.
func checkEventSequence(rp *replay) []Finding {
	if len(rp.crashes) == 0 {
		return nil
	}
	var out []Finding
	seen := map[string]bool{}
	for i := range rp.ev {
		e := &rp.ev[i]
		if i > 0 {
			switch prev := rp.ev[i-1].Seq; {
			case e.Seq == prev:
				out = append(out, Finding{Rule: spec.SUP009, Seq: e.Seq, Message: fmt.Sprintf("seq %d used twice", e.Seq)})
			case e.Seq > prev+1:
				out = append(out, Finding{Rule: spec.SUP009, Seq: e.Seq, Message: fmt.Sprintf("the sequence jumps from %d to %d", prev, e.Seq)})
			}
		}
		if (e.Type == runtimev1.EventContainerStarted || e.Type == runtimev1.EventContainerExited) && e.ContainerID != "" {
			key := string(e.Type) + "/" + e.ContainerID
			if seen[key] {
				out = append(out, Finding{Rule: spec.SUP009, Seq: e.Seq, Container: e.Container,
					Message: fmt.Sprintf("%s of %s recorded twice", e.Type, e.ContainerID)})
			}
			seen[key] = true
		}
	}
	return out
}
