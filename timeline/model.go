// Package timeline draws a pod's life as a self-contained SVG picture from its events stream
// (docs/runtime-interface.md, section 5): one lane per container in the order the containers were
// first created, one bar per instance (created → started → ready → exited), restarts as further
// bars, markers for probes, hooks, signals sent, the exit policy and notifier deliveries, and the
// stop request with its grace budget as a shaded span ending at its deadline.
//
// Build turns events into a Model (what is drawn, in time); Render lays the model out as SVG.
// The picture holds no script, loads nothing (no web font, no image, no style sheet) and
// follows the reader's light or dark colour scheme. Every text of an event (names, reasons,
// messages) is untrusted and escaped.
package timeline

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
)

// event is the runtime contract's event object.
type event = runtimev1.Event

// Types the reference runtime records beyond section 5.2 (a runtime MAY add types), drawn when
// present. reference/store defines them; this package must not link the reference runtime (the
// conformance report draws any runtime's events), so it names them too, and a test holds the
// two equal.
const (
	evStartupSucceeded  runtimev1.EventType = "StartupProbeSucceeded"
	evContainerNotReady runtimev1.EventType = "ContainerNotReady"
)

// Options adjust a picture.
type Options struct {
	// Title heads the picture; empty: "pod NAME".
	Title string
	// Grace is the pod's terminationGracePeriodSeconds. A stop request carries its own grace
	// period; a stop sequence begun without one (the exit policy fired) has this budget. Nil:
	// unknown, and such a stop sequence is drawn without a budget span.
	Grace *time.Duration
	// Notes are further observations drawn on the containers' lanes, e.g. what the workload
	// itself reported in a conformance run.
	Notes []Note
}

// Note is an observation from outside the events stream, shown as a small mark on its
// container's lane (or the pod's lane when Container is empty or unknown).
type Note struct {
	Time      time.Time `json:"time"`
	Container string    `json:"container,omitempty"`
	Text      string    `json:"text"`
}

// Model is what a picture shows, in time. Build makes it; Render draws it.
type Model struct {
	Title string
	Pod   string
	// Start and End bound the time axis: the first and the last event (or note).
	Start, End time.Time
	// PodMarks are the pod-level events: created, started, stop requested, terminating,
	// policy fired, update applied, finished.
	PodMarks []Mark
	// Lanes are the containers, in the order they were first created (containers that never
	// got an instance, e.g. skipped ones, follow in the order of their first event).
	Lanes []*Lane
	// Budgets are the grace budgets of the stop sequence, one per stop request that set a
	// deadline (a later, shorter request ends the budget earlier and gets a span of its own).
	Budgets []Budget
	// Finished reports that PodFinished was recorded.
	Finished bool
}

// Lane is one container.
type Lane struct {
	Container string
	Kind      string // init, sidecar, main or defer
	Bars      []*Bar
	Marks     []Mark
	// open holds the index in Marks of each hook or delivery begun and not yet ended.
	open map[string]int
}

// Bar is one container instance.
type Bar struct {
	ContainerID  string
	RestartCount int32
	// Created, Started, Ready and Exited are the instance's moments; zero when not recorded.
	Created, Started, Ready, Exited time.Time
	// ExitCode or Signal describe its end (at most one is set); Reason is the terminated reason.
	ExitCode *int32
	Signal   string
	Reason   string
}

// begin is the bar's first recorded moment.
func (b *Bar) begin() time.Time {
	for _, t := range []time.Time{b.Created, b.Started, b.Ready, b.Exited} {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// EndLabel is the text at the bar's end: "exit 3", "SIGKILL", "lost" or "running".
func (b *Bar) EndLabel() string {
	switch {
	case b.Exited.IsZero():
		return "running"
	case b.ExitCode != nil:
		return fmt.Sprintf("exit %d", *b.ExitCode)
	case b.Signal != "":
		return b.Signal
	case b.Reason != "":
		return strings.ToLower(strings.TrimPrefix(b.Reason, "ExitStatus"))
	}
	return "ended"
}

// Mark kinds.
const (
	MarkPod      = "pod"      // a pod-level event
	MarkProbe    = "probe"    // a probe succeeded or failed, readiness changed
	MarkHook     = "hook"     // a postStart or preStop handler (a span)
	MarkSignal   = "signal"   // a signal the runtime sent
	MarkPolicy   = "policy"   // the exit policy fired
	MarkStop     = "stop"     // a stop request
	MarkRestart  = "restart"  // a restart decided (the back-off follows)
	MarkSkip     = "skip"     // the container will never run
	MarkNotifier = "notifier" // a notifier delivery (a span)
	MarkNote     = "note"     // an observation from Options.Notes
)

// Mark is an event drawn as a point (End zero) or a short span on a lane.
type Mark struct {
	Kind  string
	Time  time.Time
	End   time.Time
	Label string
	// Detail is the longer text shown as the mark's tooltip.
	Detail string
	Failed bool
}

// Budget is a grace budget: from the stop request (or the stop sequence's start) to the
// deadline when whatever still runs is killed.
type Budget struct {
	From, Deadline time.Time
	Grace          time.Duration
	Reason         string
	Force          bool
}

// Build turns a pod's events (in seq order) into a model.
func Build(events []runtimev1.Event, opt Options) *Model {
	b := &builder{m: &Model{Title: opt.Title}, opt: opt, lanes: map[string]*Lane{}, bars: map[string]*Bar{}}
	for i := range events {
		b.add(&events[i])
	}
	b.addNotes()
	return b.finish()
}

// builder is Build's state: the model so far, its lanes by container and its bars by instance.
type builder struct {
	m           *Model
	opt         Options
	lanes       map[string]*Lane
	bars        map[string]*Bar // by container and instance
	terminating bool
}

// add places one event: on the pod's row, on an instance's bar, or as a mark or span on its
// container's lane.
func (b *builder) add(ev *event) {
	if b.m.Pod == "" {
		b.m.Pod = ev.Pod
	}
	b.m.stretch(ev.Time)
	switch ev.Type {
	case runtimev1.EventPodCreated, runtimev1.EventPodStarted, runtimev1.EventUpdateApplied,
		runtimev1.EventPodFinished, runtimev1.EventStopRequested, runtimev1.EventPodTerminating, runtimev1.EventPolicyFired:
		b.podEvent(ev)
	case runtimev1.EventContainerCreated, runtimev1.EventContainerStarted, runtimev1.EventContainerReady, runtimev1.EventContainerExited:
		b.instanceEvent(ev)
	case evStartupSucceeded, evContainerNotReady, runtimev1.EventProbeFailed, runtimev1.EventSignalSent,
		runtimev1.EventContainerRestarting, runtimev1.EventContainerSkipped, runtimev1.EventDependencyFailed:
		b.laneMark(ev)
	case runtimev1.EventHookStarted, runtimev1.EventNotifierStarted:
		b.spanStarted(ev)
	case runtimev1.EventHookFinished, runtimev1.EventNotifierFinished:
		b.spanFinished(ev)
	}
}

// lane is the event's container's lane, made on its first event.
func (b *builder) lane(ev *event) *Lane {
	l := b.lanes[ev.Container]
	if l == nil {
		l = &Lane{Container: ev.Container, Kind: ev.ContainerKind}
		b.lanes[ev.Container] = l
		b.m.Lanes = append(b.m.Lanes, l)
	}
	if l.Kind == "" {
		l.Kind = ev.ContainerKind
	}
	return l
}

// bar is the event's instance's bar on its lane, made on the instance's first event; an
// instance is its containerID, or its restart count where the event names no ID.
func (b *builder) bar(ev *event) *Bar {
	l := b.lane(ev)
	k := ev.Container + "\x00" + ev.ContainerID
	if ev.ContainerID == "" {
		rc := int32(-1)
		if ev.RestartCount != nil {
			rc = *ev.RestartCount
		}
		k = fmt.Sprintf("%s\x00#%d", ev.Container, rc)
	}
	bar := b.bars[k]
	if bar == nil {
		bar = &Bar{ContainerID: ev.ContainerID}
		if ev.RestartCount != nil {
			bar.RestartCount = *ev.RestartCount
		}
		b.bars[k] = bar
		l.Bars = append(l.Bars, bar)
	}
	return bar
}

// podEvent draws a pod-level event on the pod's row: its life's steps, stop requests with their
// grace budgets, and the exit policy (on its container's lane too).
func (b *builder) podEvent(ev *event) {
	m := b.m
	switch ev.Type {
	case runtimev1.EventPodCreated, runtimev1.EventPodStarted, runtimev1.EventUpdateApplied:
		label := map[runtimev1.EventType]string{runtimev1.EventPodCreated: "created", runtimev1.EventPodStarted: "started", runtimev1.EventUpdateApplied: "update"}[ev.Type]
		if ev.Type == runtimev1.EventUpdateApplied && ev.Generation != 0 {
			label = fmt.Sprintf("update g%d", ev.Generation)
		}
		m.PodMarks = append(m.PodMarks, Mark{Kind: MarkPod, Time: ev.Time, Label: label, Detail: detail(ev)})
	case runtimev1.EventPodFinished:
		m.Finished = true
		label := "finished"
		if ev.Phase != "" {
			label = string(ev.Phase)
		}
		if ev.ExitCode != nil {
			label += fmt.Sprintf(" (exit %d)", *ev.ExitCode)
		}
		m.PodMarks = append(m.PodMarks, Mark{Kind: MarkPod, Time: ev.Time, Label: label, Detail: detail(ev), Failed: ev.Phase == "Failed"})
	case runtimev1.EventStopRequested:
		label := "stop"
		if ev.Force {
			label = "forced stop"
		} else if ev.Reason != "" {
			label = "stop: " + ev.Reason
		}
		m.PodMarks = append(m.PodMarks, Mark{Kind: MarkStop, Time: ev.Time, Label: label, Detail: detail(ev)})
		if ev.GracePeriodSeconds != nil || ev.Force {
			g := time.Duration(0)
			if ev.GracePeriodSeconds != nil && !ev.Force {
				g = graceOf(*ev.GracePeriodSeconds)
			}
			m.addBudget(Budget{From: ev.Time, Deadline: ev.Time.Add(g), Grace: g, Reason: ev.Reason, Force: ev.Force})
		}
	case runtimev1.EventPodTerminating:
		m.PodMarks = append(m.PodMarks, Mark{Kind: MarkPod, Time: ev.Time, Label: "terminating", Detail: detail(ev)})
		if !b.terminating && len(m.Budgets) == 0 && b.opt.Grace != nil {
			m.addBudget(Budget{From: ev.Time, Deadline: ev.Time.Add(*b.opt.Grace), Grace: *b.opt.Grace, Reason: ev.Reason})
		}
		b.terminating = true
	case runtimev1.EventPolicyFired:
		mk := Mark{Kind: MarkPolicy, Time: ev.Time, Label: "policy " + ev.Reason, Detail: detail(ev)}
		m.PodMarks = append(m.PodMarks, mk)
		if ev.Container != "" {
			l := b.lane(ev)
			l.Marks = append(l.Marks, mk)
		}
	}
}

// instanceEvent sets the moments of an instance's bar: created, started, first ready, exited.
func (b *builder) instanceEvent(ev *event) {
	bar := b.bar(ev)
	switch ev.Type {
	case runtimev1.EventContainerCreated:
		bar.Created = ev.Time
	case runtimev1.EventContainerStarted:
		bar.Started = ev.Time
	case runtimev1.EventContainerReady:
		if bar.Ready.IsZero() {
			bar.Ready = ev.Time
		}
	case runtimev1.EventContainerExited:
		bar.Exited, bar.ExitCode, bar.Reason = ev.Time, ev.ExitCode, ev.Reason
		if ev.Signal != nil {
			bar.Signal = ev.Signal.Name
		}
	}
}

// laneMark draws a point event on its container's lane: probes, signals, restarts, skips.
func (b *builder) laneMark(ev *event) {
	mk := Mark{Time: ev.Time, Detail: detail(ev)}
	switch ev.Type {
	case evStartupSucceeded:
		mk.Kind, mk.Label = MarkProbe, "startup ok"
	case evContainerNotReady:
		mk.Kind, mk.Label, mk.Failed = MarkProbe, "not ready", true
	case runtimev1.EventProbeFailed:
		mk.Kind, mk.Label, mk.Failed = MarkProbe, ev.Probe+" failed", true
	case runtimev1.EventSignalSent:
		mk.Kind, mk.Label = MarkSignal, "signal"
		if ev.Signal != nil {
			mk.Label = ev.Signal.Name
		}
	case runtimev1.EventContainerRestarting:
		mk.Kind, mk.Label = MarkRestart, restartLabel(ev.Message)
	case runtimev1.EventContainerSkipped, runtimev1.EventDependencyFailed:
		mk.Kind, mk.Label, mk.Failed = MarkSkip, "skipped", true
		if ev.Type == runtimev1.EventDependencyFailed {
			mk.Label = "dependency failed"
		}
		if ev.Reason != "" {
			mk.Label += ": " + ev.Reason
		}
	}
	l := b.lane(ev)
	l.Marks = append(l.Marks, mk)
}

// spanKey names a hook's or notifier delivery's span: its kind, handler and notification.
func spanKey(ev *event) (kind, what, key string) {
	kind, what = MarkHook, ev.Hook
	if ev.Type == runtimev1.EventNotifierStarted || ev.Type == runtimev1.EventNotifierFinished {
		kind, what = MarkNotifier, ev.Notifier
	}
	return kind, what, kind + "\x00" + what + "\x00" + ev.Notification
}

// spanStarted begins a hook's or notifier delivery's span on its container's lane.
func (b *builder) spanStarted(ev *event) {
	l := b.lane(ev)
	kind, what, key := spanKey(ev)
	l.Marks = append(l.Marks, Mark{Kind: kind, Time: ev.Time, Label: what, Detail: detail(ev)})
	l.begin(key)
}

// spanFinished ends the span its start began, with its result; a finish whose start is not in
// the events is drawn as a point.
func (b *builder) spanFinished(ev *event) {
	l := b.lane(ev)
	kind, what, key := spanKey(ev)
	if mk := l.close(key); mk != nil {
		mk.End = ev.Time
		mk.Failed = ev.Result != "" && ev.Result != "Succeeded"
		if ev.Result != "" {
			mk.Label += " " + strings.ToLower(ev.Result)
		}
		mk.Detail += "\n" + detail(ev)
		return
	}
	l.Marks = append(l.Marks, Mark{Kind: kind, Time: ev.Time, Label: what + " " + strings.ToLower(ev.Result), Detail: detail(ev), Failed: ev.Result != "Succeeded"})
}

// addNotes draws Options.Notes on their container's lane, or on the pod's row.
func (b *builder) addNotes() {
	for _, n := range b.opt.Notes {
		if n.Time.IsZero() {
			continue
		}
		b.m.stretch(n.Time)
		mk := Mark{Kind: MarkNote, Time: n.Time, Label: n.Text, Detail: n.Text}
		if l := b.lanes[n.Container]; l != nil && n.Container != "" {
			l.Marks = append(l.Marks, mk)
		} else {
			b.m.PodMarks = append(b.m.PodMarks, mk)
		}
	}
}

// finish sets the axis and the order and returns the model. A running pod's axis reaches its
// deadline; a finished one's ends with its last event, and a deadline after it is drawn at the
// edge.
func (b *builder) finish() *Model {
	m := b.m
	for _, bg := range m.Budgets {
		if !m.Finished {
			m.stretch(bg.Deadline)
		}
	}
	m.order()
	if m.Title == "" && m.Pod != "" {
		m.Title = "pod " + m.Pod
	}
	return m
}

// begin remembers the last mark as a begun span under key.
func (l *Lane) begin(key string) {
	if l.open == nil {
		l.open = map[string]int{}
	}
	l.open[key] = len(l.Marks) - 1
}

// close returns the begun span under key, if any, and forgets it.
func (l *Lane) close(key string) *Mark {
	i, ok := l.open[key]
	if !ok {
		return nil
	}
	delete(l.open, key)
	return &l.Marks[i]
}

func (m *Model) stretch(t time.Time) {
	if t.IsZero() {
		return
	}
	if m.Start.IsZero() || t.Before(m.Start) {
		m.Start = t
	}
	if t.After(m.End) {
		m.End = t
	}
}

// addBudget records a budget; a later request that ends the budget earlier gets a span of its
// own, one that ends it later changes nothing (the earliest deadline holds).
func (m *Model) addBudget(b Budget) {
	if n := len(m.Budgets); n > 0 && !b.Deadline.Before(m.Budgets[n-1].Deadline) {
		return
	}
	m.Budgets = append(m.Budgets, b)
}

// order sorts the lanes by their first instance's creation (containers without an instance
// last, by their first mark), keeping the event order between equals.
func (m *Model) order() {
	first := func(l *Lane) (time.Time, bool) {
		if len(l.Bars) > 0 {
			return l.Bars[0].begin(), true
		}
		if len(l.Marks) > 0 {
			return l.Marks[0].Time, false
		}
		return time.Time{}, false
	}
	sort.SliceStable(m.Lanes, func(i, j int) bool {
		ti, bi := first(m.Lanes[i])
		tj, bj := first(m.Lanes[j])
		if bi != bj {
			return bi
		}
		return ti.Before(tj)
	})
}

// graceOf is a grace period in seconds as a Duration: never negative, and saturated at the
// longest Duration rather than wrapping around (a stream may hold any number).
func graceOf(n int64) time.Duration {
	const most = int64(math.MaxInt64 / int64(time.Second))
	switch {
	case n <= 0:
		return 0
	case n > most:
		return math.MaxInt64
	}
	return time.Duration(n) * time.Second
}

// restartLabel shortens "back-off 1s" to the delay.
func restartLabel(msg string) string {
	if d, ok := strings.CutPrefix(msg, "back-off "); ok {
		return "restart in " + d
	}
	return "restart"
}

// detail is an event's tooltip: its type and every field that says something.
func detail(ev *event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s", ev.Seq, ev.Type, ev.Time.UTC().Format("15:04:05.000"))
	if ev.Container != "" {
		fmt.Fprintf(&b, " %s (%s)", ev.Container, ev.ContainerKind)
	}
	if ev.RestartCount != nil {
		fmt.Fprintf(&b, " restartCount=%d", *ev.RestartCount)
	}
	if ev.ExitCode != nil {
		fmt.Fprintf(&b, " exitCode=%d", *ev.ExitCode)
	}
	if ev.Signal != nil {
		fmt.Fprintf(&b, " signal=%s", ev.Signal.Name)
	}
	for _, kv := range [][2]string{{"hook", ev.Hook}, {"probe", ev.Probe}, {"notifier", ev.Notifier},
		{"notification", ev.Notification}, {"result", ev.Result}, {"reason", ev.Reason},
		{"phase", string(ev.Phase)}, {"decidedBy", ev.DecidedBy}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, " %s=%s", kv[0], kv[1])
		}
	}
	if ev.GracePeriodSeconds != nil {
		fmt.Fprintf(&b, " grace=%ds", *ev.GracePeriodSeconds)
	}
	if ev.Force {
		b.WriteString(" force")
	}
	if ev.Message != "" {
		fmt.Fprintf(&b, " message=%q", ev.Message)
	}
	return b.String()
}
