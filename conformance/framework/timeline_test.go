package framework

import (
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func pev(ms int, container, typ string) probe.Event {
	return probe.Event{Container: container, Role: probe.RoleWorkload, Type: typ, Received: at(ms)}
}

func rev(ms int, seq int64, typ runtimev1.EventType, container string) runtimev1.Event {
	return runtimev1.Event{Seq: seq, Time: at(ms), Type: typ, Container: container}
}

// serialInit is init-1 then init-2 then app, with app killed (no probe exit) at the end.
func serialInit() *Timeline {
	return NewTimeline(
		[]probe.Event{
			pev(10, "init-1", probe.TypeStart), pev(100, "init-1", probe.TypeExit),
			pev(210, "init-2", probe.TypeStart), pev(300, "init-2", probe.TypeExit),
			pev(410, "app", probe.TypeStart),
		},
		[]runtimev1.Event{
			rev(5, 1, runtimev1.EventContainerStarted, "init-1"), rev(105, 2, runtimev1.EventContainerExited, "init-1"),
			rev(205, 3, runtimev1.EventContainerStarted, "init-2"), rev(305, 4, runtimev1.EventContainerExited, "init-2"),
			rev(405, 5, runtimev1.EventContainerStarted, "app"), rev(900, 6, runtimev1.EventContainerExited, "app"),
		})
}

func TestTimelinePredicates(t *testing.T) {
	tl := serialInit()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"init-1 starts before init-2", tl.StartsBefore("init-1", "init-2"), true},
		{"init-2 does not start before init-1", tl.StartsBefore("init-2", "init-1"), false},
		{"init-1 exits before init-2 starts", tl.ExitsBeforeStart("init-1", "init-2"), true},
		{"app does not exit before init-1 starts", tl.ExitsBeforeStart("app", "init-1"), false},
		{"init-1 exits before app, whose end comes from the runtime", tl.ExitsBefore("init-1", "app"), true},
		{"init-1 and init-2 do not overlap", tl.Overlaps("init-1", "init-2"), false},
		{"a missing container never started", tl.NeverStarted("ghost"), true},
		{"app started, so NeverStarted fails", tl.NeverStarted("app"), false},
		{"app was not restarted", tl.NotRestarted("app"), true},
		{"app was not restarted, so Restarted fails", tl.Restarted("app", 1), false},
		{"the runtime agrees with the probes", tl.Consistent(), true},
		{"app ended within 600ms of its start", tl.WithinBudget("app run", ProbeEvent("app", probe.TypeStart), RuntimeEv(runtimev1.EventContainerExited, "app"), 400*time.Millisecond, Tolerance{"T", 100 * time.Millisecond, ""}), true},
		{"app did not end within 450ms of its start", tl.WithinBudget("app run", ProbeEvent("app", probe.TypeStart), RuntimeEv(runtimev1.EventContainerExited, "app"), 400*time.Millisecond, Tolerance{"T", 50 * time.Millisecond, ""}), false},
		{"app ran at least 400ms", tl.AtLeast("app run", ProbeEvent("app", probe.TypeStart), RuntimeEv(runtimev1.EventContainerExited, "app"), 400*time.Millisecond, Tolerance{}), true},
		{"app did not run 600ms", tl.AtLeast("app run", ProbeEvent("app", probe.TypeStart), RuntimeEv(runtimev1.EventContainerExited, "app"), 600*time.Millisecond, Tolerance{}), false},
		{"init-1's exit is before app's start", tl.Before("order", ProbeEvent("init-1", probe.TypeExit), ProbeEvent("app", probe.TypeStart)), true},
		{"a PodFinished never happened", tl.NeverHappened("PodFinished", RuntimeEv(runtimev1.EventPodFinished, "")), true},
		{"ContainerStarted happened", tl.Happened("start", RuntimeEv(runtimev1.EventContainerStarted, "app")), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err == nil; got != tt.want {
				t.Fatalf("holds = %v, want %v (err: %v)", got, tt.want, tt.err)
			}
			if tt.err != nil && !strings.Contains(tt.err.Error(), "merged timeline") {
				t.Fatalf("a failure must print the whole timeline, got: %v", tt.err)
			}
		})
	}
}

func TestOverlapsWithARunningContainer(t *testing.T) {
	tl := NewTimeline([]probe.Event{pev(0, "side", probe.TypeStart), pev(50, "app", probe.TypeStart), pev(100, "app", probe.TypeExit)}, nil)
	if err := tl.Overlaps("side", "app"); err != nil {
		t.Fatal(err)
	}
	if err := tl.Overlaps("app", "side"); err != nil {
		t.Fatal(err)
	}
}

func TestRestartsAreCountedFromBothSources(t *testing.T) {
	tl := NewTimeline(
		[]probe.Event{pev(0, "a", probe.TypeStart), pev(10, "a", probe.TypeExit), pev(50, "a", probe.TypeStart), pev(60, "a", probe.TypeExit)},
		[]runtimev1.Event{rev(0, 1, runtimev1.EventContainerStarted, "a"), rev(11, 2, runtimev1.EventContainerExited, "a"), rev(49, 3, runtimev1.EventContainerStarted, "a"), rev(61, 4, runtimev1.EventContainerExited, "a")})
	if err := tl.Restarted("a", 1); err != nil {
		t.Fatal(err)
	}
	if got := len(tl.Instances("a")); got != 2 {
		t.Fatalf("%d instances, want 2", got)
	}
	if err := tl.Consistent(); err != nil {
		t.Fatal(err)
	}
}

// TestOverlappingCountedInstancesKeepTheirOwnEnds: a runtime that starts instance 2 before
// instance 1 exited (breaking HB-008) must show as such: instance 1's exit report, which comes
// after instance 2's start, ends instance 1, not instance 2.
func TestOverlappingCountedInstancesKeepTheirOwnEnds(t *testing.T) {
	counted := func(ms int, typ string, n int) probe.Event {
		e := pev(ms, "a", typ)
		e.Instance = n
		return e
	}
	tl := NewTimeline([]probe.Event{
		counted(0, probe.TypeStart, 1), counted(50, probe.TypeStart, 2),
		counted(100, probe.TypeExit, 1), counted(300, probe.TypeExit, 2),
	}, nil)
	in := tl.Instances("a")
	if len(in) != 2 {
		t.Fatalf("%d instances, want 2: %+v", len(in), in)
	}
	if !in[0].End.Equal(at(100)) || !in[1].End.Equal(at(300)) {
		t.Fatalf("ends %v and %v, want instance 1 at 100ms and instance 2 at 300ms", in[0].End.Sub(t0), in[1].End.Sub(t0))
	}
	if in[0].End.Before(in[1].Start) {
		t.Fatalf("instance 1 ends before instance 2 starts; they overlap")
	}
}

func TestConsistentCatchesARuntimeThatRecordsAnExitTooEarly(t *testing.T) {
	tl := NewTimeline(
		[]probe.Event{pev(0, "a", probe.TypeStart), pev(100, "a", probe.TypeExit)},
		[]runtimev1.Event{rev(1, 1, runtimev1.EventContainerStarted, "a"), rev(50, 2, runtimev1.EventContainerExited, "a")})
	err := tl.Consistent()
	if err == nil || !strings.Contains(err.Error(), "no ContainerExited is recorded at or after it") {
		t.Fatalf("Consistent() = %v", err)
	}
}

func TestConsistentCatchesAMissingStart(t *testing.T) {
	tl := NewTimeline([]probe.Event{pev(0, "a", probe.TypeStart)}, nil)
	if err := tl.Consistent(); err == nil {
		t.Fatal("a workload start without a runtime ContainerStarted passed")
	}
}

// An instance the runtime signalled and that died of the signal may have left no workload start
// (a stop that came before the program could report); an instance that was not signalled, or
// that exited on its own, must have reported one.
func TestConsistentAllowsAMissingStartOnlyForAnInstanceTheRuntimeStopped(t *testing.T) {
	sigterm := v1alpha1.Signal{Name: "SIGTERM", Number: 15}
	inst := func(ms int, seq int64, typ runtimev1.EventType) runtimev1.Event {
		ev := rev(ms, seq, typ, "a")
		ev.ContainerID = "a-1"
		return ev
	}
	started := inst(10, 1, runtimev1.EventContainerStarted)
	signalled := inst(20, 2, runtimev1.EventSignalSent)
	signalled.Signal = &sigterm
	killed := inst(30, 3, runtimev1.EventContainerExited)
	killed.Signal = &sigterm
	exited := inst(30, 3, runtimev1.EventContainerExited)
	exited.ExitCode = new(int32)
	goExit := inst(30, 3, runtimev1.EventContainerExited)
	two := int32(2)
	goExit.ExitCode = &two
	unsignalledGoExit := inst(30, 2, runtimev1.EventContainerExited)
	unsignalledGoExit.ExitCode = &two
	unsignalledKill := inst(30, 2, runtimev1.EventContainerExited)
	unsignalledKill.Signal = &sigterm
	for _, c := range []struct {
		name   string
		events []runtimev1.Event
		ok     bool
	}{
		{"signalled, killed by it", []runtimev1.Event{started, signalled, killed}, true},
		{"signalled, exited with a code", []runtimev1.Event{started, signalled, exited}, false},
		{"signalled, exited 2 (the probe's Go runtime as PID 1, before it trapped the signal)", []runtimev1.Event{started, signalled, goExit}, true},
		{"exited 2, never signalled", []runtimev1.Event{started, unsignalledGoExit}, false},
		{"killed by a signal the runtime did not send", []runtimev1.Event{started, unsignalledKill}, false},
		{"still running", []runtimev1.Event{started}, false},
	} {
		if err := NewTimeline(nil, c.events).Consistent(); (err == nil) != c.ok {
			t.Errorf("%s: Consistent() = %v, want ok=%v", c.name, err, c.ok)
		}
	}
}

func TestFallbackEventsGoLastAndAreNotTimed(t *testing.T) {
	fb := probe.Event{Container: "a", Role: probe.RoleWorkload, Type: probe.TypeStart, Fallback: true}
	tl := NewTimeline([]probe.Event{fb, pev(10, "b", probe.TypeStart)}, nil)
	if !tl.Entries[1].Probe.Fallback {
		t.Fatalf("fallback event not last: %s", tl)
	}
	if tl.Started("a") {
		t.Fatal("an untimed fallback event counted as a start")
	}
	if !strings.Contains(tl.String(), "(from fallback file)") {
		t.Fatalf("timeline does not mark the fallback event:\n%s", tl)
	}
}

func TestTimelineStringShowsBothSources(t *testing.T) {
	s := serialInit().String()
	for _, want := range []string{"probe", "runtime", "#6 ContainerExited app", "init-1 workload/start", "+0.000s"} {
		if !strings.Contains(s, want) {
			t.Errorf("timeline lacks %q:\n%s", want, s)
		}
	}
}

func TestPeriodicAllowsJitterPerGapButNotDrift(t *testing.T) {
	jitter := Tolerance{Name: "ExecJitter", Value: 500 * time.Millisecond}
	margin := Tolerance{Name: "EarlyMargin", Value: 50 * time.Millisecond}
	checks := func(arrivals ...int) *Timeline {
		var evs []probe.Event
		for _, ms := range arrivals {
			evs = append(evs, pev(ms, "r", probe.TypeCheck))
		}
		return NewTimeline(evs, nil)
	}
	m := ProbeEvent("r", probe.TypeCheck)
	for _, c := range []struct {
		name     string
		arrivals []int
		ok       bool
	}{
		{"attempts on time with jitter", []int{0, 2300, 4100, 6400, 8000, 10200}, true},
		{"a gap beyond the jitter", []int{0, 2000, 4000, 6700, 8000, 10000}, false},
		{"each gap stretched by less than the jitter (attempts timed from the previous end)", []int{0, 2300, 4600, 6900, 9200, 11500}, false},
		{"too few attempts", []int{0, 2000}, false},
	} {
		err := checks(c.arrivals...).Periodic("r's checks", m, 6, 2*time.Second, jitter, margin)
		if (err == nil) != c.ok {
			t.Errorf("%s: Periodic = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

// TestStartRecordedWaitsForTheRuntimesRecord: the workload's start report alone is not enough,
// nor is the runtime's record without it.
func TestStartRecordedWaitsForTheRuntimesRecord(t *testing.T) {
	reported := NewTimeline([]probe.Event{pev(0, "app", probe.TypeStart)}, nil)
	recordedOnly := NewTimeline(nil, []runtimev1.Event{rev(0, 1, runtimev1.EventContainerStarted, "app")})
	both := NewTimeline([]probe.Event{pev(0, "app", probe.TypeStart)}, []runtimev1.Event{rev(30, 1, runtimev1.EventContainerStarted, "app")})
	for name, c := range map[string]struct {
		tl   *Timeline
		want bool
	}{"reported only": {reported, false}, "recorded only": {recordedOnly, false}, "both": {both, true}} {
		if got := StartRecorded("app")(c.tl); got != c.want {
			t.Errorf("%s: StartRecorded = %v, want %v", name, got, c.want)
		}
	}
	if !AllStarted("app")(reported) {
		t.Error("AllStarted holds on the report alone")
	}
}
