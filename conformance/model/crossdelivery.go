package model

import (
	"fmt"
	"time"

	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// The rule that deliveries to different containers of a pod do not wait for each other (HB-021),
// judged on the exec actions' own reports: a delivery's action starts at once after its
// NotifierStarted, so an action that reported its start only after another container's action
// of the same Notification reported its end, although both deliveries had begun, waited for it.

// actionRun is the handler's own start and end reports of the exec action of a delivery: the
// first of each of its notifier's handler in the container that arrived from the delivery's
// NotifierStarted until the reaction tolerance after its NotifierFinished.
func (rp *replay) actionRun(c *container, d *delivery) (start, end *probe.Event) {
	if d.end == nil {
		return nil, nil
	}
	until := d.end.Time.Add(rp.opts.Reaction)
	for _, p := range handlerReports(rp.probe, c.name, d.start.Notifier, false) {
		if p.Received.Before(d.start.Time) || p.Received.After(until) {
			continue
		}
		switch {
		case p.Type == probe.TypeHandlerStart && start == nil:
			start = &p
		case p.Type == probe.TypeHandlerEnd && end == nil:
			end = &p
		}
	}
	return start, end
}

// checkCrossContainerDeliveries: for two deliveries of one Notification to different containers
// of the pod, both begun (NotifierStarted) before either action ended, neither action reports its
// start only after the other reported its end, more than the reaction tolerance after its own
// delivery began (HB-021).
func checkCrossContainerDeliveries(rp *replay) []Finding {
	type run struct {
		c          *container
		d          *delivery
		start, end *probe.Event
	}
	byNotification := map[string][]run{}
	for _, c := range rp.order {
		for _, d := range rp.deliveries(c) {
			if s, e := rp.actionRun(c, d); s != nil && e != nil {
				byNotification[d.start.Notification] = append(byNotification[d.start.Notification], run{c, d, s, e})
			}
		}
	}
	var out []Finding
	for n, runs := range byNotification {
		for _, x := range runs {
			for _, y := range runs {
				if x.c == y.c || !x.d.start.Time.Before(y.end.Received) {
					continue
				}
				late := x.start.Received.Sub(x.d.start.Time)
				if x.start.Received.After(y.end.Received) && late > rp.opts.Reaction {
					out = append(out, Finding{Rule: spec.HB021, Seq: x.d.start.Seq, Container: x.c.name, Message: fmt.Sprintf(
						"the action of Notification %s's delivery began (#%d) but reported its start %v later, only after the action in %s reported its end (%s): it waited for another container's delivery",
						n, x.d.start.Seq, late.Round(time.Millisecond), y.c.name, y.end.Received.Format("15:04:05.000"))})
					break
				}
			}
		}
	}
	return out
}
