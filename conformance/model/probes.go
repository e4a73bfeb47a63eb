package model

import (
	"fmt"
	"slices"
	"strings"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Rules of probe thresholds and of what follows a failed probe or hook (HOOK-003, HOOK-004,
// HOOK-008..011, HOOK-013), judged on the runtime's ProbeFailed, HookStarted/HookFinished and
// SignalSent events against the probe commands' own reports. A probe command reports its result
// and waits for the harness's acknowledgement before it exits, so a report's arrival precedes
// the end of its attempt; an attempt that reported nothing (it timed out, or its command is not
// the probe's) is never counted as a success.

// probeKinds maps a ProbeFailed event's probe to the requirement its failure threshold is
// judged under.
var probeKinds = []struct {
	kind, id string
	pick     func(*v1alpha1.Container) *v1alpha1.Probe
}{
	{runtimev1.ProbeStartup, spec.HOOK009, func(c *v1alpha1.Container) *v1alpha1.Probe { return c.StartupProbe }},
	{runtimev1.ProbeLiveness, spec.HOOK010, func(c *v1alpha1.Container) *v1alpha1.Probe { return c.LivenessProbe }},
	{runtimev1.ProbeReadiness, spec.HOOK013, func(c *v1alpha1.Container) *v1alpha1.Probe { return c.ReadinessProbe }},
}

// threshold and period are a probe's failureThreshold and periodSeconds, defaults applied.
func threshold(p *v1alpha1.Probe) int {
	if p.FailureThreshold > 0 {
		return int(p.FailureThreshold)
	}
	return 3
}

func period(p *v1alpha1.Probe) time.Duration {
	if p.PeriodSeconds > 0 {
		return time.Duration(p.PeriodSeconds) * time.Second
	}
	return 10 * time.Second
}

// quiet says the probe's command is the probe's check told not to report (-quiet): its successes
// leave no trace, so a run of failure reports may not be consecutive.
func quiet(p *v1alpha1.Probe) bool {
	return p.Exec == nil || slices.Contains(p.Exec.Command, "-quiet") || slices.Contains(p.Exec.Command, "--quiet")
}

// checkRuns are a container's probe reports of one kind, per workload instance (the index of its
// start report), when its start reports line up with the runtime's started instances one to one.
func (rp *replay) checkRuns(c *container, kind string) (map[int][]probe.Event, bool) {
	starts := workloadStarts(rp.probe, c.name)
	if len(starts) != len(c.startedInsts()) {
		return nil, false
	}
	out := map[int][]probe.Event{}
	for _, p := range reports(rp.probe, c.name, probe.RoleCheck, kind) {
		if p.Type != probe.TypeCheck {
			continue
		}
		if i := run(starts, p.Received); i >= 0 {
			out[i] = append(out[i], p)
		}
	}
	return out, true
}

// fallbacks says some report of the container came without an arrival time (a lost ordering).
func (rp *replay) fallbacks(c *container) bool {
	for _, p := range rp.probe {
		if p.Container == c.name && p.Fallback {
			return true
		}
	}
	return false
}

// checkThresholds: a ProbeFailed comes only once failureThreshold attempts can have failed in a
// row (an upper bound: attempts start at least periodSeconds apart, from the instance's creation
// plus initialDelaySeconds or from the start of the last attempt that reported a success, at
// most timeoutSeconds before its report), and no later than Reaction after the report of the
// failureThreshold-th consecutive failure the probe's own reports show (judged only while the
// instance runs and the pod is not terminating, and for readiness only once the container was
// Ready). HOOK-009 (startup), HOOK-010 (liveness), HOOK-013 (readiness).
func checkThresholds(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		if c.spec == nil {
			continue
		}
		for _, k := range probeKinds {
			p := k.pick(c.spec)
			if p == nil {
				continue
			}
			runs, ok := rp.checkRuns(c, k.kind)
			for n, in := range c.startedInsts() {
				out = append(out, rp.tooEarly(in, k.kind, k.id, p, runs[n])...)
				if ok && !quiet(p) && !rp.fallbacks(c) {
					out = append(out, rp.tooLate(in, k.kind, k.id, p, runs[n])...)
				}
			}
		}
	}
	return out
}

func (rp *replay) tooEarly(in *instance, kind, id string, p *v1alpha1.Probe, reps []probe.Event) []Finding {
	for _, pf := range in.probeFailed {
		if pf.Probe != kind {
			continue
		}
		from := in.earliest().Time.Add(time.Duration(p.InitialDelaySeconds) * time.Second)
		for _, r := range reps {
			if r.Received.Before(pf.Time) && r.Result == "success" {
				timeout := time.Duration(max(p.TimeoutSeconds, 1)) * time.Second
				from = r.Received.Add(-timeout).Add(period(p)) // the next attempt's earliest start
			}
		}
		possible := 0
		if !pf.Time.Before(from) {
			possible = int(pf.Time.Add(rp.opts.EarlyMargin).Sub(from)/period(p)) + 1
		}
		if possible < threshold(p) {
			return []Finding{{Rule: id, Seq: pf.Seq, Container: in.c.name,
				Message: fmt.Sprintf("instance %d: ProbeFailed (%s) when at most %d attempts can have failed in a row (periodSeconds %d), below failureThreshold %d",
					in.n+1, kind, possible, period(p)/time.Second, threshold(p))}}
		}
		break
	}
	return nil
}

func (rp *replay) tooLate(in *instance, kind, id string, p *v1alpha1.Probe, reps []probe.Event) []Finding {
	var ready *runtimev1.Event
	for i := range rp.ev {
		if e := &rp.ev[i]; e.Type == runtimev1.EventContainerReady && e.Container == in.c.name && before(in.started, e) && before(e, in.exited) {
			ready = e
			break
		}
	}
	failures := 0
	for _, r := range reps {
		if r.Result == "success" {
			failures = 0
			continue
		}
		if kind == runtimev1.ProbeReadiness && (ready == nil || r.Received.Before(ready.Time)) {
			continue
		}
		failures++
		if failures < threshold(p) {
			continue
		}
		due := r.Received.Add(rp.opts.Reaction)
		for _, pf := range in.probeFailed {
			if pf.Probe == kind && !pf.Time.After(due) {
				return nil
			}
		}
		if (in.exited != nil && !in.exited.Time.After(due)) || (rp.terminating != nil && !rp.terminating.Time.After(due)) {
			return nil
		}
		return []Finding{{Rule: id, Container: in.c.name,
			Message: fmt.Sprintf("instance %d: the %s probe reported its failure %d in a row (failureThreshold %d) at %s, and no ProbeFailed followed within the reaction tolerance %v",
				in.n+1, kind, failures, threshold(p), r.Received.Format("15:04:05.000"), rp.opts.Reaction)}}
	}
	return nil
}

// checkProbeKills: what follows a ProbeFailed before the stop sequence began: a startup probe's
// kills the instance, which ends with reason Unhealthy (HOOK-009); a liveness probe's sends the
// stop signal first, SIGKILL no sooner than terminationGracePeriodSeconds after it, and the end
// has reason Unhealthy (HOOK-010).
func checkProbeKills(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		for _, in := range c.startedInsts() {
			pf := firstHealthFailure(in)
			if pf == nil || !before(pf, rp.terminating) || in.endedBefore(pf) {
				continue
			}
			id := spec.HOOK009
			if pf.Probe == runtimev1.ProbeLiveness {
				id = spec.HOOK010
				out = append(out, rp.livenessSignals(in, pf)...)
			}
			if e := in.exited; e != nil && before(e, rp.terminating) && e.Reason != reasonUnhealthy {
				out = append(out, Finding{Rule: id, Seq: e.Seq, Container: c.name,
					Message: fmt.Sprintf("instance %d ended with reason %s after its %s probe failed (#%d), not Unhealthy", in.n+1, e.Reason, pf.Probe, pf.Seq)})
			}
		}
	}
	return out
}

// firstHealthFailure is the instance's first ProbeFailed of a startup or liveness probe, or nil.
func firstHealthFailure(in *instance) *runtimev1.Event {
	for _, pf := range in.probeFailed {
		if pf.Probe == runtimev1.ProbeStartup || pf.Probe == runtimev1.ProbeLiveness {
			return pf
		}
	}
	return nil
}

// livenessSignals judges the signals after a liveness ProbeFailed (HOOK-010), up to the stop
// sequence: the stop signal first, SIGKILL not before the grace period after it.
func (rp *replay) livenessSignals(in *instance, pf *runtimev1.Event) []Finding {
	grace := time.Duration(*rp.pod.Spec.TerminationGracePeriodSeconds) * time.Second
	var stopAt *runtimev1.Event
	for _, s := range in.signals {
		if s.Seq < pf.Seq || s.Signal == nil || !before(s, rp.terminating) {
			continue
		}
		switch {
		case s.Signal.Name == in.c.stopSignal() && stopAt == nil:
			stopAt = s
		case s.Signal.Name == "SIGKILL" && stopAt == nil:
			return []Finding{{Rule: spec.HOOK010, Seq: s.Seq, Container: in.c.name,
				Message: fmt.Sprintf("instance %d was sent SIGKILL after its liveness probe failed (#%d) without its stop signal %s first", in.n+1, pf.Seq, in.c.stopSignal())}}
		case s.Signal.Name == "SIGKILL" && s.Time.Before(stopAt.Time.Add(grace-rp.opts.EarlyMargin)):
			return []Finding{{Rule: spec.HOOK010, Seq: s.Seq, Container: in.c.name,
				Message: fmt.Sprintf("instance %d was sent SIGKILL %v after its stop signal, before terminationGracePeriodSeconds", in.n+1, s.Time.Sub(stopAt.Time).Round(time.Millisecond))}}
		}
	}
	return nil
}

// checkPostStartFailure: HOOK-008, an instance whose postStart hook failed before the stop
// sequence began ends with reason StartError (unless its workload had reported its own end
// before the failure: the hook failed because its container ended).
func checkPostStartFailure(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		for _, in := range c.startedInsts() {
			var failed *runtimev1.Event
			for _, h := range in.hooks {
				if h.Type == runtimev1.EventHookFinished && h.Hook == runtimev1.HookPostStart && h.Result != runtimev1.ResultSucceeded {
					failed = h
					break
				}
			}
			if failed == nil || !before(failed, rp.terminating) || in.endedBefore(failed) {
				continue
			}
			if e := in.exited; e != nil && before(e, rp.terminating) && e.Reason != v1alpha1.ReasonStartError {
				out = append(out, Finding{Rule: spec.HOOK008, Seq: e.Seq, Container: c.name,
					Message: fmt.Sprintf("instance %d ended with reason %s after its postStart hook failed (#%d), not StartError", in.n+1, e.Reason, failed.Seq)})
			}
		}
	}
	return out
}

// checkPreStopOnlyInStop: HOOK-011, a preStop hook starts only in a stop sequence, never after a
// forced stop request, and never for an instance whose startup or liveness probe or postStart
// hook failed before the sequence began.
func checkPreStopOnlyInStop(rp *replay) []Finding {
	force := rp.forced()
	var out []Finding
	for _, c := range rp.order {
		for _, in := range c.insts {
			for _, h := range in.hooks {
				if h.Type != runtimev1.EventHookStarted || h.Hook != runtimev1.HookPreStop {
					continue
				}
				why := ""
				switch {
				case !before(rp.terminating, h):
					why = "before the stop sequence began"
				case before(force, h):
					why = fmt.Sprintf("after the forced stop request #%d", force.Seq)
				case before(firstHealthFailure(in), rp.terminating):
					why = "for an instance killed after its probe failed"
				}
				if why != "" {
					out = append(out, Finding{Rule: spec.HOOK011, Seq: h.Seq, Container: c.name,
						Message: fmt.Sprintf("instance %d's preStop hook started %s", in.n+1, why)})
				}
			}
		}
	}
	return out
}

// checkSleepHooks: HOOK-004, a sleep hook that succeeded lasted its seconds (− EarlyMargin).
func checkSleepHooks(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		if c.spec == nil || c.spec.Lifecycle == nil {
			continue
		}
		for _, in := range c.insts {
			started := map[string]*runtimev1.Event{}
			for _, h := range in.hooks {
				if h.Type == runtimev1.EventHookStarted {
					started[h.Hook] = h
					continue
				}
				s, handler := started[h.Hook], hookHandler(c.spec.Lifecycle, h.Hook)
				if s == nil || handler == nil || handler.Sleep == nil || h.Result != runtimev1.ResultSucceeded {
					continue
				}
				want := time.Duration(handler.Sleep.Seconds) * time.Second
				if took := h.Time.Sub(s.Time); took < want-rp.opts.EarlyMargin {
					out = append(out, Finding{Rule: spec.HOOK004, Seq: h.Seq, Container: c.name,
						Message: fmt.Sprintf("instance %d's %s sleep hook of %d s succeeded after %v", in.n+1, h.Hook, handler.Sleep.Seconds, took.Round(time.Millisecond))})
				}
			}
		}
	}
	return out
}

func hookHandler(l *v1alpha1.Lifecycle, hook string) *v1alpha1.LifecycleHandler {
	switch hook {
	case runtimev1.HookPostStart:
		return l.PostStart
	case runtimev1.HookPreStop:
		return l.PreStop
	}
	return nil
}

// checkExecEnv: HOOK-003, an exec hook sees the container's environment: every report it makes of
// what it sees holds each of the container's env values (a probe command reports no environment).
func checkExecEnv(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		if c.spec == nil || len(c.spec.Env) == 0 {
			continue
		}
	reports:
		for _, p := range rp.probe {
			if p.Container != c.name || p.Type != probe.TypeReport || p.Report == nil || (p.Role != probe.RoleHook && p.Role != probe.RoleCheck) {
				continue
			}
			for _, env := range c.spec.Env {
				if strings.Contains(env.Value, "$(") {
					continue // a reference the runtime may expand
				}
				if got, ok := p.Report.Env[env.Name]; !ok || got != env.Value {
					out = append(out, Finding{Rule: spec.HOOK003, Container: c.name,
						Message: fmt.Sprintf("its %s %s saw %s=%q (set: %t); the container's environment gives %q", p.Handler, p.Role, env.Name, got, ok, env.Value)})
					break reports
				}
			}
		}
	}
	return out
}

// hasProbes says a container has a probe.
func hasProbes(p *v1alpha1.Pod) bool {
	return anyContainer(p, func(c *v1alpha1.Container) bool {
		return c.StartupProbe != nil || c.ReadinessProbe != nil || c.LivenessProbe != nil
	})
}

// hasHooksWithEnv says a container with env values has a hook.
func hasHooksWithEnv(p *v1alpha1.Pod) bool {
	return anyContainer(p, func(c *v1alpha1.Container) bool { return len(c.Env) > 0 && c.Lifecycle != nil })
}

// hasSleepHook says a container has a sleep hook.
func hasSleepHook(p *v1alpha1.Pod) bool {
	return anyContainer(p, func(c *v1alpha1.Container) bool {
		l := c.Lifecycle
		return l != nil && ((l.PostStart != nil && l.PostStart.Sleep != nil) || (l.PreStop != nil && l.PreStop.Sleep != nil))
	})
}

// hasHealthProbes says a container has a startup or liveness probe.
func hasHealthProbes(p *v1alpha1.Pod) bool {
	return anyContainer(p, func(c *v1alpha1.Container) bool { return c.StartupProbe != nil || c.LivenessProbe != nil })
}
