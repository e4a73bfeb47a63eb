package model

import (
	"fmt"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Rules of notifier deliveries, as NotifierStarted and NotifierFinished record them: the action
// the container declares (NTF-004), to a running, Started instance (NTF-009), at most once per
// Notification and instance (NTF-010), one at a time per container and notifier (HB-017).

// instanceAt is the instance of the container an event is about: the one with the event's
// containerID, else the one running at that point of the history (nil if none).
func (c *container) instanceAt(e *runtimev1.Event) *instance {
	for _, in := range c.insts {
		if e.ContainerID != "" && in.containerID() == e.ContainerID {
			return in
		}
	}
	for _, in := range c.insts {
		if before(in.started, e) && !before(in.exited, e) {
			return in
		}
	}
	return nil
}

// delivery is one NotifierStarted and the NotifierFinished that ends it (nil if none).
type delivery struct {
	start, end *runtimev1.Event
	in         *instance
}

// deliveries are the container's deliveries in seq order.
func (rp *replay) deliveries(c *container) []*delivery {
	var out []*delivery
	for i := range rp.ev {
		e := &rp.ev[i]
		if e.Container != c.name {
			continue
		}
		switch e.Type {
		case runtimev1.EventNotifierStarted:
			out = append(out, &delivery{start: e, in: c.instanceAt(e)})
		case runtimev1.EventNotifierFinished:
			for _, d := range out {
				if d.end == nil && d.start.Notifier == e.Notifier && d.start.Notification == e.Notification {
					d.end = e
					break
				}
			}
		}
	}
	return out
}

func checkDeliveries(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		declared := map[string]bool{}
		if c.spec != nil {
			for _, n := range c.spec.Notifiers {
				declared[n.Name] = true
			}
		}
		ds := rp.deliveries(c)
		once := map[[2]string]bool{}
		for i, d := range ds {
			e := d.start
			f := func(id, format string, args ...any) {
				out = append(out, Finding{Rule: id, Seq: e.Seq, Container: c.name,
					Message: fmt.Sprintf("delivery of %s (notifier %s): ", e.Notification, e.Notifier) + fmt.Sprintf(format, args...)})
			}
			if !declared[e.Notifier] {
				f(spec.NTF004, "the container declares no notifier %s", e.Notifier)
			}
			switch {
			case d.in == nil:
				f(spec.NTF009, "no instance of the container was running")
			case !d.in.startedBefore(e):
				f(spec.NTF009, "instance %d was not Started yet", d.in.n+1)
			case !rp.startupPassed(c, e):
				f(spec.NTF009, "instance %d's startup probe never reported a success", d.in.n+1)
			}
			if d.in != nil {
				key := [2]string{e.Notification, fmt.Sprint(d.in.n)}
				if once[key] {
					f(spec.NTF010, "delivered a second time to instance %d", d.in.n+1)
				}
				once[key] = true
			}
			for _, p := range ds[:i] {
				if p.start.Notifier != e.Notifier || before(p.end, e) {
					continue
				}
				if p.in != nil && before(p.in.exited, e) {
					continue // its instance ended, and the action with it
				}
				f(spec.HB017, "started while the delivery of %s (#%d) had not ended", p.start.Notification, p.start.Seq)
			}
		}
	}
	return out
}

// startupPassed says whether the container's startup probe may have passed in the instance a
// delivery (its NotifierStarted e) went to, as far as its checks' own reports tell: a container
// without a startup probe, or whose checks do not report, may have; otherwise a check of that
// instance (the workload run e falls in) must have reported success at some point. A success
// reported after e is accepted (its report may arrive late), as is one whose arrival the harness
// did not stamp: only an instance whose checks never reported success was certainly not Started.
func (rp *replay) startupPassed(c *container, e *runtimev1.Event) bool {
	if c.spec == nil || c.spec.StartupProbe == nil {
		return true
	}
	checks := reports(rp.probe, c.name, probe.RoleCheck, "startup")
	starts := workloadStarts(rp.probe, c.name)
	i := run(starts, e.Time)
	if len(checks) == 0 || i < 0 {
		return true
	}
	for _, p := range rp.probe {
		if p.Container == c.name && p.Role == probe.RoleCheck && p.Handler == "startup" && p.Type == probe.TypeCheck &&
			p.Result == "success" && (p.Fallback || p.Received.IsZero() || run(starts, p.Received) == i) {
			return true
		}
	}
	return false
}
