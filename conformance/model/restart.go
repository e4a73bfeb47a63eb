package model

import (
	"fmt"
	"math"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
)

// Rules of restarts: which exits restart (RST-003, SIDE-001), how restarts are counted (RST-006)
// and how soon they may come (RST-008, RST-009).

// backoff is the pod's back-off: the delay of the n-th restart since the last reset.
func (rp *replay) backoff(n int) time.Duration {
	b := rp.pod.Spec.RestartBackoff
	d := *b.InitialSeconds * math.Pow(*b.Factor, float64(n-1))
	d = math.Min(d, *b.MaxSeconds)
	return time.Duration(d * float64(time.Second))
}

// restartWanted says whether the effective restart policy restarts after this end: yes, no, or
// both readings (an end the history lets count as a failure or not).
func (rp *replay) restartWanted(in *instance) (can, must bool) {
	switch in.c.policy {
	case v1alpha1.RestartPolicyAlways:
		return true, true
	case v1alpha1.RestartPolicyOnFailure:
		fail, succeed := rp.failure(in)
		return fail, fail && !succeed
	}
	return false, false
}

func checkRestartPolicy(rp *replay) []Finding {
	var out []Finding
	for _, c := range append(rp.kind(kindInit), rp.kind(kindMain)...) {
		st := c.startedInsts()
		for i := 0; i+1 < len(st); i++ {
			in, next := st[i], st[i+1]
			if in.exited == nil {
				continue // HB-008's
			}
			if can, _ := rp.restartWanted(in); !can && !(c.kind == kindInit && in.exited.ExitCode != nil && *in.exited.ExitCode == 0) {
				out = append(out, Finding{Rule: spec.RST003, Seq: next.started.Seq, Container: c.name,
					Message: fmt.Sprintf("restarted after an end its restart policy %s does not restart (%s)", c.policy, describeEnd(in))})
			}
		}
		out = append(out, rp.missingRestart(c, spec.RST003)...)
	}
	return out
}

func checkSidecarRestarts(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.kind(kindSidecar) {
		out = append(out, rp.missingRestart(c, spec.SIDE001)...)
	}
	return out
}

// missingRestart reports a last instance that its policy restarts, when the moment of the
// restart plus the reaction tolerance passed while the container still had to be restarted:
// before the stop sequence began for an init or main container, before every main, init and
// defer container had ended (so before the sidecars' step) for a sidecar.
func (rp *replay) missingRestart(c *container, id string) []Finding {
	last := c.last()
	if last == nil || last.exited == nil || last.started == nil {
		return nil
	}
	if _, must := rp.restartWanted(last); !must {
		return nil
	}
	if rp.finished == nil {
		return nil // the history is not complete
	}
	cut := rp.finished.Time
	if c.kind != kindSidecar {
		if !before(last.exited, rp.terminating) {
			return nil // the stop sequence cancelled it (STOP-005)
		}
		if rp.terminating != nil {
			cut = rp.terminating.Time
		}
	} else if rp.terminating != nil {
		if s, _ := rp.stopSent(last); s != nil {
			return nil // its own step of the stop sequence
		}
		cut = rp.terminating.Time
		for _, o := range rp.order {
			if o.kind == kindSidecar {
				continue
			}
			if l := o.last(); l != nil && l.exited != nil && l.exited.Time.After(cut) {
				cut = l.exited.Time
			}
		}
	}
	n := len(c.startedInsts())
	delay := rp.backoff(1)
	if d, ok := rp.delaysIncluding(c)[n]; ok {
		delay = d
	}
	due := last.exited.Time.Add(delay + rp.opts.Reaction)
	if cut.After(due) {
		return []Finding{{Rule: id, Seq: last.exited.Seq, Container: c.name,
			Message: fmt.Sprintf("its policy %s restarts it after %s, but no new instance started within the back-off %v plus the reaction tolerance %v (still not by %s)",
				c.policy, describeEnd(last), delay, rp.opts.Reaction, cut.Sub(last.exited.Time).Round(time.Millisecond))}}
	}
	return nil
}

// delaysIncluding gives the smallest allowed delay of the restart after the k-th started
// instance (1-based), including a restart that has not happened.
func (rp *replay) delaysIncluding(c *container) map[int]time.Duration {
	reset := time.Duration(*rp.pod.Spec.RestartBackoff.ResetAfterSeconds * float64(time.Second))
	out := map[int]time.Duration{}
	n := 0
	for k, in := range c.startedInsts() {
		if in.exited == nil {
			break
		}
		if in.exited.Time.Sub(in.started.Time) >= reset-rp.opts.Reaction {
			n = 0
		}
		n++
		out[k+1] = rp.backoff(n)
	}
	return out
}

func checkBackoff(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		if c.kind == kindDefer {
			continue
		}
		st := c.startedInsts()
		delays := rp.delaysIncluding(c)
		for i := 1; i < len(st); i++ {
			prev, in := st[i-1], st[i]
			if !before(prev.exited, in.started) {
				continue // HB-008's
			}
			gap := in.started.Time.Sub(prev.exited.Time)
			if want := delays[i]; gap < want-rp.opts.EarlyMargin {
				out = append(out, Finding{Rule: spec.RST008, Seq: in.started.Seq, Container: c.name,
					Message: fmt.Sprintf("instance %d started %v after the previous one finished, before its back-off of %v", i+1, gap.Round(time.Millisecond), want)})
			}
		}
	}
	return out
}

func checkRestartCount(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		if c.kind == kindDefer {
			continue
		}
		clean := true
		for _, in := range c.insts {
			if in.started == nil && in.exited != nil {
				clean = false // an instance that never ran: whether it counts is not judged
			}
		}
		if !clean {
			continue
		}
		st := c.startedInsts()
		for i, in := range st {
			if rc := in.started.RestartCount; rc != nil && int(*rc) != i {
				out = append(out, Finding{Rule: spec.RST006, Seq: in.started.Seq, Container: c.name,
					Message: fmt.Sprintf("ContainerStarted of instance %d has restartCount %d, want %d", i+1, *rc, i)})
			}
			if in.exited != nil && in.exited.RestartCount != nil && int(*in.exited.RestartCount) != i {
				out = append(out, Finding{Rule: spec.RST006, Seq: in.exited.Seq, Container: c.name,
					Message: fmt.Sprintf("ContainerExited of instance %d has restartCount %d, want %d", i+1, *in.exited.RestartCount, i)})
			}
		}
		if cs := rp.status(c.name); cs != nil && len(st) > 0 && int(cs.RestartCount) != len(st)-1 {
			out = append(out, Finding{Rule: spec.RST006, Container: c.name,
				Message: fmt.Sprintf("the final status has restartCount %d after %d instances started, want %d", cs.RestartCount, len(st), len(st)-1)})
		}
	}
	return out
}

// describeEnd is an instance's end as a finding names it.
func describeEnd(in *instance) string {
	e := in.exited
	switch {
	case e == nil:
		return "no end"
	case e.ExitCode != nil:
		return fmt.Sprintf("exit %d, reason %s", *e.ExitCode, e.Reason)
	case e.Signal != nil:
		return fmt.Sprintf("signal %s, reason %s", e.Signal.Name, e.Reason)
	}
	return "reason " + e.Reason
}

// status is a container's final status, or nil.
func (rp *replay) status(name string) *v1alpha1.ContainerStatus {
	if rp.final == nil {
		return nil
	}
	for _, list := range [][]v1alpha1.ContainerStatus{rp.final.InitContainerStatuses, rp.final.ContainerStatuses, rp.final.DeferContainerStatuses} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}
