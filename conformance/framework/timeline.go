package framework

import (
	"fmt"
	"sort"
	"strings"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/conformance/probe"
)

// Source of a timeline entry.
const (
	SourceProbe   = "probe"
	SourceRuntime = "runtime"
)

// Entry is one event on the merged timeline. Time is the harness's arrival stamp for probe
// events and the runtime's own timestamp for runtime events (both from the host's clock).
type Entry struct {
	Time    time.Time
	Source  string
	Probe   *probe.Event
	Runtime *runtimev1.Event
}

// Timeline is the merged, time-ordered view of what the probes reported and what the runtime
// recorded for one pod. Every predicate returns nil when it holds and otherwise an error whose
// message ends with the whole timeline.
type Timeline struct {
	Entries []Entry
}

// NewTimeline merges probe and runtime events. Probe events from the fallback file have no
// arrival time; they go last, in file order, and never satisfy a timing predicate.
func NewTimeline(probeEvents []probe.Event, runtimeEvents []runtimev1.Event) *Timeline {
	tl := &Timeline{}
	var late []Entry
	for i := range probeEvents {
		ev := probeEvents[i]
		e := Entry{Time: ev.Received, Source: SourceProbe, Probe: &ev}
		if ev.Received.IsZero() {
			late = append(late, e)
			continue
		}
		tl.Entries = append(tl.Entries, e)
	}
	for i := range runtimeEvents {
		ev := runtimeEvents[i]
		tl.Entries = append(tl.Entries, Entry{Time: ev.Time, Source: SourceRuntime, Runtime: &ev})
	}
	// Stable: equal times keep probe-before-runtime and each source's own order.
	sort.SliceStable(tl.Entries, func(i, j int) bool { return tl.Entries[i].Time.Before(tl.Entries[j].Time) })
	tl.Entries = append(tl.Entries, late...)
	return tl
}

// String renders the whole timeline, one entry per line, times relative to the first entry.
func (tl *Timeline) String() string {
	var b strings.Builder
	b.WriteString("merged timeline (probe = reported by the workload, stamped on arrival; runtime = `events`):\n")
	var t0 time.Time
	for _, e := range tl.Entries {
		if !e.Time.IsZero() {
			t0 = e.Time
			break
		}
	}
	for _, e := range tl.Entries {
		at := "      ?"
		if !e.Time.IsZero() {
			at = fmt.Sprintf("%+8.3fs", e.Time.Sub(t0).Seconds())
		}
		fmt.Fprintf(&b, "  %s  %-7s  %s\n", at, e.Source, e.describe())
	}
	if len(tl.Entries) == 0 {
		b.WriteString("  (empty)\n")
	}
	return b.String()
}

func (e Entry) describe() string {
	if p := e.Probe; p != nil {
		return DescribeProbe(p)
	}
	r := e.Runtime
	s := fmt.Sprintf("#%d %s", r.Seq, r.Type)
	if r.Container != "" {
		s += fmt.Sprintf(" %s(%s)", r.Container, r.ContainerKind)
	}
	if r.RestartCount != nil {
		s += fmt.Sprintf(" restartCount=%d", *r.RestartCount)
	}
	if r.ExitCode != nil {
		s += fmt.Sprintf(" exitCode=%d", *r.ExitCode)
	}
	if r.Signal != nil {
		s += " signal=" + r.Signal.Name
	}
	for _, kv := range [][2]string{{"hook", r.Hook}, {"probe", r.Probe}, {"notifier", r.Notifier}, {"result", r.Result}, {"reason", r.Reason}, {"phase", string(r.Phase)}, {"decidedBy", r.DecidedBy}} {
		if kv[1] != "" {
			s += " " + kv[0] + "=" + kv[1]
		}
	}
	if r.GracePeriodSeconds != nil {
		s += fmt.Sprintf(" grace=%ds", *r.GracePeriodSeconds)
	}
	if r.Force {
		s += " force"
	}
	if r.Message != "" {
		s += fmt.Sprintf(" message=%q", r.Message)
	}
	return s
}

// DescribeProbe is one line about a workload's report, as the merged timeline shows it.
func DescribeProbe(p *probe.Event) string {
	s := fmt.Sprintf("%s %s/%s", p.Container, p.Role, p.Type)
	if p.Handler != "" {
		s += " handler=" + p.Handler
	}
	if p.Instance > 0 {
		s += fmt.Sprintf(" instance=%d", p.Instance)
	}
	if p.Signal != "" {
		s += " signal=" + p.Signal
	}
	if p.Action != "" {
		s += " action=" + p.Action
	}
	if p.ExitCode != nil {
		s += fmt.Sprintf(" exitCode=%d", *p.ExitCode)
	}
	if p.Result != "" {
		s += " result=" + p.Result
	}
	if p.Fallback {
		s += " (from fallback file)"
	}
	return s
}

// TimelineEntry names the report entry that carries a failed spec's merged timeline (a
// TimelineRecord), so that a report can draw it.
const TimelineEntry = "merged timeline"

// TimelineRecord is a merged timeline as a report carries it: the runtime's events as recorded
// and what the workloads reported (without their environment reports, which the failure
// message quotes where it matters).
type TimelineRecord struct {
	Events []runtimev1.Event `json:"events"`
	Probe  []probe.Event     `json:"probe"`
}

// String keeps the entry's text form short; the JSON form holds the record.
func (r TimelineRecord) String() string {
	return fmt.Sprintf("%d runtime events, %d workload reports", len(r.Events), len(r.Probe))
}

// Record returns the timeline as a TimelineRecord, in timeline order.
func (tl *Timeline) Record() TimelineRecord {
	var r TimelineRecord
	for _, e := range tl.Entries {
		switch {
		case e.Runtime != nil:
			r.Events = append(r.Events, *e.Runtime)
		case e.Probe != nil:
			p := *e.Probe
			p.Report, p.Core = nil, nil
			r.Probe = append(r.Probe, p)
		}
	}
	return r
}

// fail builds a predicate failure carrying the whole timeline.
func (tl *Timeline) fail(format string, args ...any) error {
	return fmt.Errorf("%s\n\n%s", fmt.Sprintf(format, args...), tl)
}

// Matcher selects timeline entries.
type Matcher func(Entry) bool

// ProbeEvent matches a workload-reported event of a container ("" matches any container).
func ProbeEvent(container, typ string) Matcher {
	return func(e Entry) bool {
		return e.Probe != nil && !e.Probe.Fallback && (container == "" || e.Probe.Container == container) && e.Probe.Type == typ
	}
}

// HandlerEvent matches a hook or notifier handler's start or end in a container.
func HandlerEvent(container, handler, typ string) Matcher {
	return func(e Entry) bool {
		return ProbeEvent(container, typ)(e) && e.Probe.Handler == handler
	}
}

// RuntimeEv matches a runtime event of a type and container ("" matches any container).
func RuntimeEv(typ runtimev1.EventType, container string) Matcher {
	return func(e Entry) bool {
		return e.Runtime != nil && e.Runtime.Type == typ && (container == "" || e.Runtime.Container == container)
	}
}

// All returns the entries a matcher selects, in timeline order.
func (tl *Timeline) All(m Matcher) []Entry {
	var out []Entry
	for _, e := range tl.Entries {
		if m(e) {
			out = append(out, e)
		}
	}
	return out
}

// First returns the first entry a matcher selects.
func (tl *Timeline) First(m Matcher) (Entry, bool) {
	for _, e := range tl.Entries {
		if m(e) {
			return e, true
		}
	}
	return Entry{}, false
}

// Last returns the last entry a matcher selects.
func (tl *Timeline) Last(m Matcher) (Entry, bool) {
	for i := len(tl.Entries) - 1; i >= 0; i-- {
		if m(tl.Entries[i]) {
			return tl.Entries[i], true
		}
	}
	return Entry{}, false
}

// RuntimeEvents returns the runtime's events in seq order.
func (tl *Timeline) RuntimeEvents() []runtimev1.Event {
	var out []runtimev1.Event
	for _, e := range tl.Entries {
		if e.Runtime != nil {
			out = append(out, *e.Runtime)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// Interval is one instance of a container's workload: from its probe start to its end (the
// probe's exit or crash report, else the runtime's ContainerExited for that instance).
type Interval struct {
	Container string
	Instance  int // 1-based, in start order
	Start     time.Time
	End       time.Time // zero while running
}

// Instances returns the intervals of a container, in start order. An exit or crash report
// ends the interval of the instance that sent it: the one with the same instance number when
// the container is counted (probe.Event.Instance), so that instances a runtime wrongly lets
// overlap (HB-008) keep their own ends; else the latest interval still open.
func (tl *Timeline) Instances(container string) []Interval {
	var out []Interval
	exits := tl.All(RuntimeEv(runtimev1.EventContainerExited, container))
	open := -1
	byNumber := map[int]int{} // a counted instance's number → its index in out
	for _, e := range tl.Entries {
		p := e.Probe
		if p == nil || p.Fallback || p.Container != container || p.Role != probe.RoleWorkload {
			continue
		}
		switch p.Type {
		case probe.TypeStart:
			out = append(out, Interval{Container: container, Instance: len(out) + 1, Start: e.Time})
			open = len(out) - 1
			if p.Instance > 0 {
				byNumber[p.Instance] = open
			}
		case probe.TypeExit, probe.TypeCrash:
			i := open
			if j, ok := byNumber[p.Instance]; ok && p.Instance > 0 {
				i = j
			}
			if i >= 0 && out[i].End.IsZero() {
				out[i].End = e.Time
			}
			if i == open {
				open = -1
			}
		}
	}
	for i := range out {
		if out[i].End.IsZero() && i < len(exits) && !exits[i].Time.Before(out[i].Start) {
			out[i].End = exits[i].Time
		}
	}
	return out
}

// Started reports whether the container's workload ever reported a start.
func (tl *Timeline) Started(container string) bool { return len(tl.Instances(container)) > 0 }

// StartsBefore holds when a's first instance started before b's first instance.
func (tl *Timeline) StartsBefore(a, b string) error {
	ia, ib := tl.Instances(a), tl.Instances(b)
	switch {
	case len(ia) == 0:
		return tl.fail("StartsBefore(%s, %s): %s never started", a, b, a)
	case len(ib) == 0:
		return tl.fail("StartsBefore(%s, %s): %s never started", a, b, b)
	case !ia[0].Start.Before(ib[0].Start):
		return tl.fail("StartsBefore(%s, %s): %s started %v after %s", a, b, a, ia[0].Start.Sub(ib[0].Start), b)
	}
	return nil
}

// ExitsBeforeStart holds when every instance of a had ended before b's first instance started
// (e.g. an init container and the next one).
func (tl *Timeline) ExitsBeforeStart(a, b string) error {
	ia, ib := tl.Instances(a), tl.Instances(b)
	if len(ia) == 0 {
		return tl.fail("ExitsBeforeStart(%s, %s): %s never started", a, b, a)
	}
	if len(ib) == 0 {
		return tl.fail("ExitsBeforeStart(%s, %s): %s never started", a, b, b)
	}
	last := ia[len(ia)-1]
	if last.End.IsZero() || !last.End.Before(ib[0].Start) {
		return tl.fail("ExitsBeforeStart(%s, %s): %s (instance %d) had not ended when %s started", a, b, a, last.Instance, b)
	}
	return nil
}

// ExitsBefore holds when a's last instance ended before b's last instance ended.
func (tl *Timeline) ExitsBefore(a, b string) error {
	ia, ib := tl.Instances(a), tl.Instances(b)
	if len(ia) == 0 || len(ib) == 0 {
		return tl.fail("ExitsBefore(%s, %s): both must have started (%d and %d instances)", a, b, len(ia), len(ib))
	}
	ea, eb := ia[len(ia)-1].End, ib[len(ib)-1].End
	if ea.IsZero() || eb.IsZero() {
		return tl.fail("ExitsBefore(%s, %s): both must have ended", a, b)
	}
	if !ea.Before(eb) {
		return tl.fail("ExitsBefore(%s, %s): %s ended %v after %s", a, b, a, ea.Sub(eb), b)
	}
	return nil
}

// Overlaps holds when some instance of a and some instance of b were running at the same time.
func (tl *Timeline) Overlaps(a, b string) error {
	for _, x := range tl.Instances(a) {
		for _, y := range tl.Instances(b) {
			if before(x.Start, y.End) && before(y.Start, x.End) {
				return nil
			}
		}
	}
	return tl.fail("Overlaps(%s, %s): no instance of %s ran while an instance of %s ran", a, b, a, b)
}

// before compares with zero end meaning "still running".
func before(t, end time.Time) bool { return end.IsZero() || t.Before(end) }

// Restarted holds when the container's workload started at least times+1 times, and the runtime
// recorded as many starts.
func (tl *Timeline) Restarted(container string, times int) error {
	n := len(tl.Instances(container))
	rn := len(tl.All(RuntimeEv(runtimev1.EventContainerStarted, container)))
	if n < times+1 || rn < times+1 {
		return tl.fail("Restarted(%s, %d): the workload started %d times and the runtime recorded %d starts, want at least %d", container, times, n, rn, times+1)
	}
	return nil
}

// NotRestarted holds when the container started exactly once (workload and runtime agree).
func (tl *Timeline) NotRestarted(container string) error {
	n := len(tl.Instances(container))
	rn := len(tl.All(RuntimeEv(runtimev1.EventContainerStarted, container)))
	if n != 1 || rn != 1 {
		return tl.fail("NotRestarted(%s): the workload started %d times and the runtime recorded %d starts, want exactly 1", container, n, rn)
	}
	return nil
}

// NeverStarted holds when neither the workload nor the runtime saw the container start.
func (tl *Timeline) NeverStarted(container string) error {
	n := len(tl.Instances(container))
	rn := len(tl.All(RuntimeEv(runtimev1.EventContainerStarted, container)))
	if n != 0 || rn != 0 {
		return tl.fail("NeverStarted(%s): the workload started %d times and the runtime recorded %d starts", container, n, rn)
	}
	return nil
}

// Happened holds when the matcher selects at least one entry; what describes it for messages.
func (tl *Timeline) Happened(what string, m Matcher) error {
	if _, ok := tl.First(m); !ok {
		return tl.fail("expected %s, which is not on the timeline", what)
	}
	return nil
}

// NeverHappened holds when the matcher selects nothing.
func (tl *Timeline) NeverHappened(what string, m Matcher) error {
	if e, ok := tl.First(m); ok {
		return tl.fail("%s must not happen, but did: %s", what, e.describe())
	}
	return nil
}

// Before holds when the first entry matching a precedes the first matching b; both must exist.
func (tl *Timeline) Before(what string, a, b Matcher) error {
	ea, oka := tl.First(a)
	eb, okb := tl.First(b)
	if !oka || !okb {
		return tl.fail("%s: an endpoint is missing (first: %v, second: %v)", what, oka, okb)
	}
	if !ea.Time.Before(eb.Time) {
		return tl.fail("%s: %s is not before %s", what, ea.describe(), eb.describe())
	}
	return nil
}

// WithinBudget holds when the first entry matching to is at most budget+slack after the first
// entry matching from; slack is a named tolerance (printed in the report).
func (tl *Timeline) WithinBudget(what string, from, to Matcher, budget time.Duration, slack Tolerance) error {
	ef, okf := tl.First(from)
	et, okt := tl.First(to)
	if !okf || !okt {
		return tl.fail("%s: an endpoint is missing (from: %v, to: %v)", what, okf, okt)
	}
	took := et.Time.Sub(ef.Time)
	if took > budget+slack.Value {
		return tl.fail("%s took %v, over the budget %v + %s %v", what, took.Round(time.Millisecond), budget, slack.Name, slack.Value)
	}
	return nil
}

// AtLeast holds when the first entry matching to is at least min after the first matching from
// (minus slack): the runtime did not cut a wait short.
func (tl *Timeline) AtLeast(what string, from, to Matcher, minimum time.Duration, slack Tolerance) error {
	ef, okf := tl.First(from)
	et, okt := tl.First(to)
	if !okf || !okt {
		return tl.fail("%s: an endpoint is missing (from: %v, to: %v)", what, okf, okt)
	}
	if took := et.Time.Sub(ef.Time); took < minimum-slack.Value {
		return tl.fail("%s took only %v, want at least %v - %s %v", what, took.Round(time.Millisecond), minimum, slack.Name, slack.Value)
	}
	return nil
}

// Consistent checks the runtime's events against the workloads' own reports: as many runtime
// starts as workload starts per container, and no ContainerExited recorded before the workload
// reported (and had acknowledged) its exit. This is the "runtime says started/exited, reality
// disagrees" class of bug.
func (tl *Timeline) Consistent() error {
	names := map[string]bool{}
	for _, e := range tl.Entries {
		if e.Probe != nil && e.Probe.Role == probe.RoleWorkload {
			names[e.Probe.Container] = true
		}
		if e.Runtime != nil && e.Runtime.Container != "" {
			names[e.Runtime.Container] = true
		}
	}
	var problems []string
	stopped := tl.stoppedBeforeTheirWorkloads()
	for name := range names {
		inst := tl.Instances(name)
		starts := tl.All(RuntimeEv(runtimev1.EventContainerStarted, name))
		if silent := stopped[name]; len(inst) > len(starts) || len(inst) < len(starts)-silent {
			problems = append(problems, fmt.Sprintf("%s: the workload started %d times, the runtime recorded %d ContainerStarted (%d of them stopped by the runtime before a workload could report)", name, len(inst), len(starts), silent))
		}
		exits := tl.All(RuntimeEv(runtimev1.EventContainerExited, name))
		probeExits := tl.All(func(e Entry) bool {
			return e.Probe != nil && !e.Probe.Fallback && e.Probe.Container == name && e.Probe.Role == probe.RoleWorkload &&
				(e.Probe.Type == probe.TypeExit || e.Probe.Type == probe.TypeCrash)
		})
		for _, pe := range probeExits {
			// The runtime's exit for the instance must not precede the workload's own last report.
			ok := false
			for _, re := range exits {
				if !re.Time.Before(pe.Time) {
					ok = true
					break
				}
			}
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: the workload reported its exit at %s but no ContainerExited is recorded at or after it", name, pe.Time.Format(time.RFC3339Nano)))
			}
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return tl.fail("runtime events disagree with the workloads:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// goSignalExit is the exit status of a Go program that got a signal it had not trapped and could
// not die of (the runtime's dieFromSignal): the probe's, as PID 1, before it traps its signals.
const goSignalExit = 2

// stoppedBeforeTheirWorkloads counts, by container, the instances that may have left no workload
// start: those the runtime signalled (SignalSent with the instance's containerID) and that then
// died of a signal, or exited 2: the probe is a Go program and its container's PID 1, and a
// signal that reaches it before it trapped the signal makes the Go runtime re-raise it, which
// the kernel ignores for a PID 1 without a handler, and then exit 2. On a loaded machine (or on
// a fast OCI runtime: crun) a stop, or the kill after a failed postStart hook, can reach an
// instance before its program has run far enough to report, which no requirement forbids; an
// instance that ended any other way, or was never signalled by the runtime, must have reported
// its start.
func (tl *Timeline) stoppedBeforeTheirWorkloads() map[string]int {
	type instance struct{ container, id string }
	signalled := map[instance]bool{}
	n := map[string]int{}
	for _, ev := range tl.RuntimeEvents() {
		if ev.Container == "" || ev.ContainerID == "" {
			continue
		}
		switch ev.Type {
		case runtimev1.EventSignalSent:
			signalled[instance{ev.Container, ev.ContainerID}] = true
		case runtimev1.EventContainerExited:
			if signalled[instance{ev.Container, ev.ContainerID}] && (ev.Signal != nil || (ev.ExitCode != nil && *ev.ExitCode == goSignalExit)) {
				n[ev.Container]++
			}
		}
	}
	return n
}

// Periodic holds when the first n entries matching m arrive period apart: each gap between two
// consecutive ones within period ± jitter, and their mean gap within period ± jitter/(n-1) +
// margin. The entries are reports of actions the runtime started (probe attempts), stamped on
// arrival: each arrival is the start plus a delay that varies by at most jitter, so one gap is
// off by at most jitter, and the mean of n-1 gaps (the first-to-last span over n-1) by at most
// jitter/(n-1). The mean catches a runtime that drifts by less than jitter per period.
func (tl *Timeline) Periodic(what string, m Matcher, n int, period time.Duration, jitter, margin Tolerance) error {
	all := tl.All(m)
	if n < 2 || len(all) < n {
		return tl.fail("%s: want %d entries to measure, have %d", what, max(n, 2), len(all))
	}
	all = all[:n]
	for i := 1; i < n; i++ {
		gap := all[i].Time.Sub(all[i-1].Time)
		if gap < period-jitter.Value || gap > period+jitter.Value {
			return tl.fail("%s: entries %d and %d are %v apart, want %v ± %s %v", what, i, i+1, gap.Round(time.Millisecond), period, jitter.Name, jitter.Value)
		}
	}
	mean := all[n-1].Time.Sub(all[0].Time) / time.Duration(n-1)
	allowed := jitter.Value/time.Duration(n-1) + margin.Value
	if mean < period-allowed || mean > period+allowed {
		return tl.fail("%s: the mean gap over %d entries is %v, want %v ± %v (%s %v / %d + %s %v)", what, n, mean.Round(time.Millisecond), period, allowed, jitter.Name, jitter.Value, n-1, margin.Name, margin.Value)
	}
	return nil
}
