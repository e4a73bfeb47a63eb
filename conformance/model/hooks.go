package model

import (
	"fmt"
	"time"

	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Rules of probe attempts against the container's start (HB-006, HB-007), judged on what the
// processes themselves reported: a probe command reports its result before it exits, a hook
// handler its end before it exits, so an attempt whose report arrived before the report that
// gates it certainly started too early. An attempt that came too late to tell is never judged.

// reports are a container's reports of a role and handler, in arrival order (fallback ones,
// which have no arrival time, left out).
func reports(events []probe.Event, container, role, handler string) []probe.Event {
	var out []probe.Event
	for _, p := range events {
		if p.Container == container && p.Role == role && p.Handler == handler && !p.Fallback && !p.Received.IsZero() {
			out = append(out, p)
		}
	}
	return out
}

// workloadStarts are the arrival times of the container's workload start reports.
func workloadStarts(events []probe.Event, container string) []time.Time {
	var out []time.Time
	for _, p := range reports(events, container, probe.RoleWorkload, "") {
		if p.Type == probe.TypeStart {
			out = append(out, p.Received)
		}
	}
	return out
}

// run is the index of the workload instance a report at t belongs to: the last that had
// reported its start by then (-1 if none).
func run(starts []time.Time, t time.Time) int {
	i := -1
	for k, s := range starts {
		if !s.After(t) {
			i = k
		}
	}
	return i
}

// firstPerRun maps each workload instance to the arrival of its first report that ok accepts.
func firstPerRun(starts []time.Time, reps []probe.Event, ok func(probe.Event) bool) map[int]time.Time {
	out := map[int]time.Time{}
	for _, p := range reps {
		if !ok(p) {
			continue
		}
		if i := run(starts, p.Received); i >= 0 {
			if _, seen := out[i]; !seen {
				out[i] = p.Received
			}
		}
	}
	return out
}

func checkProbeGates(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		if c.spec == nil {
			continue
		}
		starts := workloadStarts(rp.probe, c.name)
		hookEnds := reports(rp.probe, c.name, probe.RoleHook, "postStart")
		// gate[i] is when instance i's postStart hook reported its successful end, the model's
		// proof that the hook succeeded; judged only for a container whose hook reports at all.
		postStart := c.spec.Lifecycle != nil && c.spec.Lifecycle.PostStart != nil && len(hookEnds) > 0
		hookOK := firstPerRun(starts, hookEnds, func(p probe.Event) bool {
			return p.Type == probe.TypeHandlerEnd && p.ExitCode != nil && *p.ExitCode == 0
		})
		startupChecks := reports(rp.probe, c.name, probe.RoleCheck, "startup")
		startupOK := firstPerRun(starts, startupChecks, func(p probe.Event) bool {
			return p.Type == probe.TypeCheck && p.Result == "success"
		})
		early := func(p probe.Event, gate map[int]time.Time) (int, bool) {
			i := run(starts, p.Received)
			if i < 0 {
				return i, false // not attributable to an instance
			}
			g, ok := gate[i]
			return i, !ok || p.Received.Before(g)
		}
		if postStart && c.spec.StartupProbe != nil {
			for _, p := range startupChecks {
				if i, bad := early(p, hookOK); bad {
					out = append(out, Finding{Rule: spec.HB006, Container: c.name,
						Message: fmt.Sprintf("instance %d: a startupProbe attempt reported at %s, before its postStart hook had reported success", i+1, p.Received.Format("15:04:05.000"))})
					break
				}
			}
		}
		for _, kind := range []string{"readiness", "liveness"} {
			for _, p := range reports(rp.probe, c.name, probe.RoleCheck, kind) {
				if postStart {
					if i, bad := early(p, hookOK); bad {
						out = append(out, Finding{Rule: spec.HB007, Container: c.name,
							Message: fmt.Sprintf("instance %d: a %sProbe attempt reported before its postStart hook had reported success", i+1, kind)})
						break
					}
				}
				if c.spec.StartupProbe != nil && len(startupChecks) > 0 {
					if i, bad := early(p, startupOK); bad {
						out = append(out, Finding{Rule: spec.HB007, Container: c.name,
							Message: fmt.Sprintf("instance %d: a %sProbe attempt reported before its startupProbe had reported a success", i+1, kind)})
						break
					}
				}
			}
		}
	}
	return out
}
