package model

import (
	"slices"
	"sort"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
)

// Container kinds as events name them (containerKind).
const (
	kindInit    = "init"
	kindSidecar = "sidecar"
	kindMain    = "main"
	kindDefer   = "defer"
)

// container is what the model knows of one container of the manifest and its instances.
type container struct {
	name  string
	kind  string
	spec  *v1alpha1.Container
	dspec *v1alpha1.DeferContainer
	// policy is the effective restart policy (a regular init container's Always is OnFailure).
	policy v1alpha1.RestartPolicy
	insts  []*instance
	// depFailed is the DependencyFailed event of a main container that never started.
	depFailed *runtimev1.Event
}

// instance is one run of a container as the events record it.
type instance struct {
	c                *container
	n                int // 0-based, in start order
	created, started *runtimev1.Event
	exited           *runtimev1.Event
	// signals, probeFailed and hooks are the runtime's SignalSent, ProbeFailed and
	// HookStarted/HookFinished events about this instance, in seq order.
	signals     []*runtimev1.Event
	probeFailed []*runtimev1.Event
	hooks       []*runtimev1.Event
	// work is what the workload itself reported (start, signals received, exit or crash), in
	// arrival order; empty unless the container's reports line up with the runtime's starts one
	// to one (attachProbe).
	work []probe.Event
}

// replay is a history indexed for the rules.
type replay struct {
	pod   *v1alpha1.Pod
	raw   *v1alpha1.Pod // the manifest as submitted, without defaults
	opts  Options
	ev    []runtimev1.Event
	probe []probe.Event
	final *v1alpha1.PodStatus

	order  []*container // in manifest order: initContainers, containers, deferContainers
	byName map[string]*container

	terminating *runtimev1.Event   // the first PodTerminating
	stops       []*runtimev1.Event // StopRequested, in seq order
	fired       []*runtimev1.Event // PolicyFired, in seq order
	finished    *runtimev1.Event   // PodFinished
	updated     bool               // an update was applied (UpdateApplied)
	lost        string             // why the history holds a supervisor's loss, "" if it does not

	notifications []Notification      // those that target the pod (targeting)
	lives         map[string]*PodLife // the pods the harness created, by name (nil when unknown)
	updates       []Update            // the harness's updates, in issue order
	crashes       []Crash             // the harness's crashes, in issue order
	accepted      []*applied          // the accepted updates as the model reads them (appliedUpdates)
	images        map[string]Image    // what the harness read of the pod's images (History.Images)
}

func newReplay(h History, opts Options) *replay {
	rp := &replay{pod: defaulted(h.Pod), raw: h.Pod, opts: opts, probe: h.Probe, final: h.Final, images: h.Images, byName: map[string]*container{}}
	rp.ev = append([]runtimev1.Event(nil), h.Events...)
	sort.SliceStable(rp.ev, func(i, j int) bool { return rp.ev[i].Seq < rp.ev[j].Seq })
	s := &rp.pod.Spec
	add := func(c *container) {
		rp.order = append(rp.order, c)
		rp.byName[c.name] = c
	}
	for i := range s.InitContainers {
		c := &s.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == v1alpha1.RestartPolicyAlways {
			add(&container{name: c.Name, kind: kindSidecar, spec: c, policy: v1alpha1.RestartPolicyAlways})
			continue
		}
		pol := effective(c, s.RestartPolicy)
		if pol == v1alpha1.RestartPolicyAlways {
			pol = v1alpha1.RestartPolicyOnFailure // INIT-002
		}
		add(&container{name: c.Name, kind: kindInit, spec: c, policy: pol})
	}
	for i := range s.Containers {
		c := &s.Containers[i]
		add(&container{name: c.Name, kind: kindMain, spec: c, policy: effective(c, s.RestartPolicy)})
	}
	for i := range s.DeferContainers {
		d := &s.DeferContainers[i]
		add(&container{name: d.Name, kind: kindDefer, dspec: d, policy: d.RestartPolicy})
	}
	for i := range rp.ev {
		rp.index(&rp.ev[i])
	}
	rp.attachProbe(h.Probe)
	rp.updates = slices.Clone(h.Updates)
	sort.SliceStable(rp.updates, func(i, j int) bool { return rp.updates[i].Issued.Before(rp.updates[j].Issued) })
	rp.accepted = rp.appliedUpdates()
	rp.crashes = slices.Clone(h.Crashes)
	sort.SliceStable(rp.crashes, func(i, j int) bool { return rp.crashes[i].Issued.Before(rp.crashes[j].Issued) })
	if h.Pods != nil {
		rp.lives = map[string]*PodLife{}
		for i := range h.Pods {
			rp.lives[h.Pods[i].Name] = &h.Pods[i]
		}
	}
	for _, n := range h.Notifications {
		if rp.targeting(&n) {
			rp.notifications = append(rp.notifications, n)
		}
	}
	return rp
}

// targeting says whether a Notification is about the pod: spec.pods names it, its selector
// matches the pod's labels as submitted or as an update set them, or a read of it holds a record
// of it.
func (rp *replay) targeting(n *Notification) bool {
	if slices.Contains(n.Spec.Pods, rp.pod.Metadata.Name) || rp.selectable(n.Spec.Selector) {
		return true
	}
	for i := range n.Views {
		if rp.record(&n.Views[i]) != nil {
			return true
		}
	}
	return false
}

// effective is a container's resolved restart policy (RST-002): its own, else the pod's.
func effective(c *v1alpha1.Container, pod v1alpha1.RestartPolicy) v1alpha1.RestartPolicy {
	if c.RestartPolicy != nil {
		return *c.RestartPolicy
	}
	return pod
}

// index files one event under its container and instance.
func (rp *replay) index(e *runtimev1.Event) {
	switch e.Type {
	case runtimev1.EventPodTerminating:
		if rp.terminating == nil {
			rp.terminating = e
		}
		return
	case runtimev1.EventStopRequested:
		rp.stops = append(rp.stops, e)
		return
	case runtimev1.EventPolicyFired:
		rp.fired = append(rp.fired, e)
		return
	case runtimev1.EventPodFinished:
		if rp.finished == nil {
			rp.finished = e
		}
		return
	case runtimev1.EventUpdateApplied:
		rp.updated = true
		return
	case "SupervisorAdopted":
		rp.lost = "a supervisor was lost and its pod adopted (" + string(e.Type) + ")"
		return
	}
	c := rp.byName[e.Container]
	if c == nil {
		return
	}
	switch e.Type {
	case runtimev1.EventContainerCreated:
		c.insts = append(c.insts, &instance{c: c, n: len(c.insts), created: e})
	case runtimev1.EventContainerStarted:
		in := c.last()
		if in == nil || in.started != nil || in.exited != nil {
			in = &instance{c: c, n: len(c.insts)}
			c.insts = append(c.insts, in)
		}
		in.started = e
	case runtimev1.EventContainerExited:
		in := c.ending(e.ContainerID)
		if in == nil {
			in = &instance{c: c, n: len(c.insts)}
			c.insts = append(c.insts, in)
		}
		in.exited = e
		if e.Reason == reasonExitStatusLost && rp.lost == "" {
			rp.lost = "an instance's exit status was lost (" + e.Container + ", ExitStatusLost)"
		}
	case runtimev1.EventDependencyFailed:
		if c.depFailed == nil {
			c.depFailed = e
		}
	case runtimev1.EventSignalSent, runtimev1.EventProbeFailed, runtimev1.EventHookStarted, runtimev1.EventHookFinished:
		in := c.open()
		if x := c.ending(e.ContainerID); x != nil && e.ContainerID != "" && x.containerID() == e.ContainerID {
			in = x
		}
		if in == nil {
			return
		}
		switch e.Type {
		case runtimev1.EventSignalSent:
			in.signals = append(in.signals, e)
		case runtimev1.EventProbeFailed:
			in.probeFailed = append(in.probeFailed, e)
		default:
			in.hooks = append(in.hooks, e)
		}
	}
}

// last is the container's latest instance, or nil.
func (c *container) last() *instance {
	if len(c.insts) == 0 {
		return nil
	}
	return c.insts[len(c.insts)-1]
}

// ending is the instance an exit ends: the one with its containerID, else the oldest that has
// not ended (instances that wrongly overlap keep their own ends: HB-008); nil if none.
func (c *container) ending(id string) *instance {
	var oldest *instance
	for _, in := range c.insts {
		if in.exited != nil {
			continue
		}
		if id != "" && in.containerID() == id {
			return in
		}
		if oldest == nil {
			oldest = in
		}
	}
	return oldest
}

// containerID is the instance's ID as its events give it.
func (in *instance) containerID() string {
	for _, e := range []*runtimev1.Event{in.created, in.started} {
		if e != nil && e.ContainerID != "" {
			return e.ContainerID
		}
	}
	return ""
}

// earliest is the instance's first event: its ContainerCreated, else its ContainerStarted, else
// its exit.
func (in *instance) earliest() *runtimev1.Event {
	switch {
	case in.created != nil:
		return in.created
	case in.started != nil:
		return in.started
	}
	return in.exited
}

// open is the container's instance that has not exited, or nil.
func (c *container) open() *instance {
	if in := c.last(); in != nil && in.exited == nil {
		return in
	}
	return nil
}

// startedInsts are the instances the runtime recorded as running.
func (c *container) startedInsts() []*instance {
	var out []*instance
	for _, in := range c.insts {
		if in.started != nil {
			out = append(out, in)
		}
	}
	return out
}

// stopSignal is the container's stop signal name.
func (c *container) stopSignal() string {
	if c.spec != nil && c.spec.StopSignal != "" {
		return c.spec.StopSignal
	}
	return v1alpha1.DefaultStopSignal
}

// attachProbe gives each started instance the workload's own reports, when the container's
// reports line up with the runtime's starts one to one (framework.Timeline.Consistent holds the
// runtime to that separately).
func (rp *replay) attachProbe(events []probe.Event) {
	byName := map[string][][]probe.Event{}
	for _, p := range events {
		if p.Role != probe.RoleWorkload || p.Fallback || p.Received.IsZero() {
			continue
		}
		runs := byName[p.Container]
		if p.Type == probe.TypeStart {
			byName[p.Container] = append(runs, []probe.Event{p})
			continue
		}
		if len(runs) == 0 {
			continue
		}
		i := len(runs) - 1
		if p.Instance > 0 && p.Instance <= len(runs) {
			i = p.Instance - 1
		}
		runs[i] = append(runs[i], p)
	}
	for _, c := range rp.order {
		started := c.startedInsts()
		runs := byName[c.name]
		if len(runs) != len(started) {
			continue
		}
		for i, in := range started {
			in.work = runs[i]
		}
	}
}

// ended is what the workload said about its own end: an exit code, or the signal it raised, or
// neither when it reported no end (it was killed, or did not report).
func (in *instance) ended() (code *int, crash string, at time.Time, ok bool) {
	for _, p := range in.work {
		switch p.Type {
		case probe.TypeExit:
			return p.ExitCode, "", p.Received, true
		case probe.TypeCrash:
			return nil, p.Signal, p.Received, true
		}
	}
	return nil, "", time.Time{}, false
}

// firstEvent is the history's first event of type typ about the container name, or nil.
func (rp *replay) firstEvent(typ runtimev1.EventType, name string) *runtimev1.Event {
	for i := range rp.ev {
		if e := &rp.ev[i]; e.Type == typ && e.Container == name {
			return e
		}
	}
	return nil
}

// before reports whether a precedes b in the history (seq order); a nil b is "never".
func before(a, b *runtimev1.Event) bool {
	return a != nil && (b == nil || a.Seq < b.Seq)
}

// stopSent is the first signal of a stop the runtime sent this instance before it ended: its
// stop signal or SIGKILL after the stop sequence began (nil if none). After a kill for the
// instance's health its signals are that kill's, not a stop (terminology), except a second stop
// signal after the stop sequence began (its stop step's: the kill sends one) and a SIGKILL from
// the earliest budget end on (the budget end's, STOP-010): a stop's. maybeKill says that
// SIGKILL may be the kill's own too: the kill sent no stop signal first (HOOK-008 and HOOK-009
// only say "kill"), or its SIGKILL was due (terminationGracePeriodSeconds after its stop
// signal, HOOK-010).
func (rp *replay) stopSent(in *instance) (s *runtimev1.Event, maybeKill bool) {
	if rp.terminating == nil {
		return nil, false
	}
	kill := in.healthKill()
	var killStop *runtimev1.Event // the kill's stop signal
	for _, s := range in.signals {
		if s.Signal == nil || !before(s, in.exited) {
			continue
		}
		if kill != nil && s.Seq > kill.Seq {
			end, _ := rp.earliestBudgetEnd()
			switch {
			case s.Signal.Name == in.c.stopSignal() && killStop == nil:
				killStop = s
			case s.Seq < rp.terminating.Seq:
			case s.Signal.Name == in.c.stopSignal():
				return s, false // a second stop signal: its stop step's, not the kill's
			case s.Signal.Name == "SIGKILL" && !s.Time.Before(end.Add(-rp.opts.EarlyMargin)):
				grace := time.Duration(*rp.pod.Spec.TerminationGracePeriodSeconds) * time.Second
				return s, killStop == nil || !s.Time.Before(killStop.Time.Add(grace-rp.opts.EarlyMargin))
			}
			continue
		}
		if s.Seq < rp.terminating.Seq {
			continue
		}
		if s.Signal.Name == "SIGKILL" || s.Signal.Name == in.c.stopSignal() {
			return s, false
		}
	}
	return nil, false
}

// stopped says whether the runtime stopped the instance (terminology: it had sent its stop
// signal or SIGKILL in the stop sequence before the instance ended) and whether that is the
// only reading: an instance whose workload reported its own end before the signal was sent may
// have ended on its own, and one SIGKILLed at the budget end after a kill for its health may
// have died of that kill's SIGKILL; a runtime may count it either way; so may an instance whose
// workload reported its stop signal's arrival in the stop sequence when the runtime recorded no
// stop signal (unrecordedStop).
func (rp *replay) stopped(in *instance) (yes, sure bool) {
	s, maybeKill := rp.stopSent(in)
	if s == nil {
		if rp.unrecordedStop(in) {
			return true, false
		}
		return false, true
	}
	if _, _, at, ok := in.ended(); maybeKill || (ok && at.Before(s.Time)) {
		return true, false
	}
	return true, true
}

// unrecordedStop says the workload reported its container's stop signal arriving once the stop
// sequence had begun (its report stamped at or after PodTerminating), before it reported its own
// end, and it was not killed for its health: the runtime may have stopped it without recording
// the signal (a runtime that cannot see the signals it sends, as podman's adapter). The events
// alone would make that stop an end of the instance's own; the workload's report says otherwise,
// so the model accepts either reading rather than judge on the missing SignalSent.
func (rp *replay) unrecordedStop(in *instance) bool {
	if rp.terminating == nil || in.killedForHealth() {
		return false
	}
	for _, p := range in.work {
		switch p.Type {
		case probe.TypeExit, probe.TypeCrash:
			return false
		case probe.TypeSignal:
			if p.Signal == in.c.stopSignal() && !p.Received.Before(rp.terminating.Time) {
				return true
			}
		}
	}
	return false
}

// killedForHealth says the runtime killed the instance after its liveness or startup probe
// failed, or after its postStart hook failed (a failure whatever its exit: HOOK-008..010); not
// when the workload had reported its own end before that failure was recorded (a postStart hook
// fails when its container ends under it).
func (in *instance) killedForHealth() bool { return in.healthKill() != nil }

// healthKill is the first event that made the runtime kill the instance for its health, nil if
// none: a liveness or startup probe's failure, or a failed postStart hook, before the workload
// reported its own end.
func (in *instance) healthKill() *runtimev1.Event {
	var first *runtimev1.Event
	for _, pf := range in.probeFailed {
		if (pf.Probe == runtimev1.ProbeLiveness || pf.Probe == runtimev1.ProbeStartup) && !in.endedBefore(pf) && (first == nil || pf.Seq < first.Seq) {
			first = pf
		}
	}
	for _, h := range in.hooks {
		if h.Type == runtimev1.EventHookFinished && h.Hook == runtimev1.HookPostStart && h.Result != runtimev1.ResultSucceeded && !in.endedBefore(h) && (first == nil || h.Seq < first.Seq) {
			first = h
		}
	}
	return first
}

// endedBefore says the workload reported its own end (exit or crash) before the event.
func (in *instance) endedBefore(e *runtimev1.Event) bool {
	_, _, at, ok := in.ended()
	return ok && at.Before(e.Time)
}

// failure says which readings of the instance's end count as a failure (EXIT-012, EXIT-013):
// canFail and canSucceed are both true only when the history allows both.
func (rp *replay) failure(in *instance) (canFail, canSucceed bool) {
	e := in.exited
	if e == nil {
		return false, false
	}
	own := e.Signal != nil || (e.ExitCode != nil && *e.ExitCode != 0) || (e.ExitCode == nil && e.Signal == nil) || in.killedForHealth()
	byStop := e.ExitCode != nil && *e.ExitCode != 0
	yes, sure := rp.stopped(in)
	switch {
	case !yes:
		return own, !own
	case sure:
		return byStop, !byStop
	default:
		return own || byStop, !own || !byStop
	}
}

// forced is the first forced stop request, or nil.
func (rp *replay) forced() *runtimev1.Event {
	for _, s := range rp.stops {
		if isForced(s) {
			return s
		}
	}
	return nil
}

// isForced says whether a stop request is forced: --force, or a grace period of 0.
func isForced(s *runtimev1.Event) bool {
	return s.Force || (s.GracePeriodSeconds != nil && *s.GracePeriodSeconds == 0)
}

// kind is the containers of kind k in manifest order.
func (rp *replay) kind(k string) []*container {
	var out []*container
	for _, c := range rp.order {
		if c.kind == k {
			out = append(out, c)
		}
	}
	return out
}

// outOfModel says why the history lets the model not judge a rule's requirements ("" when it
// does): an update replaces instances outside the restart policy (UPD-007, UPD-008), and a lost
// supervisor loses exits, both of which this model does not replay yet.
func (rp *replay) outOfModel(r rule) string {
	switch {
	case rp.lost != "" && !r.underLoss:
		return rp.lost + "; the model does not replay a supervisor's loss"
	case rp.updated && !r.underUpdate:
		return "an update was applied; the model does not replay updates"
	}
	return ""
}
