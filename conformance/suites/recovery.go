package suites

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// reasonExitStatusLost is the terminated reason of an instance whose end nobody observed (SUP-005).
const reasonExitStatusLost = "ExitStatusLost"

// Notes the recovery scenarios record while driving their pods (times are RFC 3339 nano).
const (
	noteCrashed     = "crashed"       // when `crash` returned
	noteAdopted     = "adopting-verb" // when the first verb after the crash returned
	noteIDBefore    = "id-before"     // a container's containerID before the crash
	noteIDAfter     = "id-after"      // the same after adoption
	noteStateAfter  = "state-after"   // its state after adoption: running, waiting, terminated
	noteCrashes     = "crashes"       // how many crashes the busy scenario injected
	noteVerbs       = "verbs"         // how many verbs it checked after them
	noteProblem     = "problem-"      // prefix: a verb after a crash that failed or printed something invalid
	noteMoments     = "moments"       // the random delays used, for reproduction
	noteCreation    = "creation"      // what creating the pod's first instance cost (a Go duration)
	busyCrashes     = 8
	busyMaxDelayMS  = 700
	busyMaxSettleMS = 300
)

// recoveryTiming derives the scenarios' durations from the run's Reaction tolerance, so that a
// runtime which restarts a timer at adoption (instead of keeping its moment) misses the timer's
// moment by more than Reaction, whatever the slow factor.
type recoveryTiming struct {
	reaction time.Duration
	// unsupervised is how long a pod stays without supervisor after a crash before the next verb:
	// more than Reaction, so a timer restarted at adoption lands visibly late.
	unsupervised time.Duration
	// timer is the back-off, deadline and grace period (whole seconds) the scenarios use: longer
	// than unsupervised, so the timer is still pending at adoption.
	timer int64
}

func newRecoveryTiming(t fw.Tolerances) recoveryTiming {
	r := t.Reaction.Value
	if r <= 0 {
		r = fw.SpecReactionTolerance
	}
	unsupervised := r + 1500*time.Millisecond
	timer := int64(math.Ceil((unsupervised + r + time.Second).Seconds()))
	return recoveryTiming{reaction: r, unsupervised: unsupervised, timer: timer}
}

// noteTime records a moment; noteTimeOf reads it back.
func noteTime(p *fw.Pod, key string, t time.Time) { p.Note(key, t.UTC().Format(time.RFC3339Nano)) }

func noteTimeOf(o *fw.Outcome, key string) time.Time {
	v, ok := o.Pod.Notes()[key]
	Expect(ok).To(BeTrue(), "the scenario recorded %q (notes %v)", key, o.Pod.Notes())
	t, err := time.Parse(time.RFC3339Nano, v)
	Expect(err).NotTo(HaveOccurred())
	return t
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// recorded is a WaitFor condition: the runtime recorded n events of a type for a container.
func recorded(typ runtimev1.EventType, container string, n int) func(*fw.Timeline) bool {
	return func(tl *fw.Timeline) bool { return len(tl.All(fw.RuntimeEv(typ, container))) >= n }
}

// crashThenAdopt crashes the pod's supervisor, keeps the pod unsupervised until `until` (no
// verb touches it meanwhile; between may act on the pod's workloads), then runs the first verb
// after the crash (`status`, whose output must validate) and records both moments.
func crashThenAdopt(ctx context.Context, p *fw.Pod, until func(crashed time.Time) time.Time, between func() error) (*fw.PodStatusView, error) {
	crashed, err := p.Crash(ctx)
	if err != nil {
		return nil, err
	}
	noteTime(p, noteCrashed, crashed)
	if between != nil {
		if err := between(); err != nil {
			return nil, err
		}
	}
	if err := sleepCtx(ctx, time.Until(until(crashed))); err != nil {
		return nil, err
	}
	st, res, err := p.ValidStatus(ctx)
	if err != nil {
		return nil, fmt.Errorf("the first verb after the crash: %w", err)
	}
	noteTime(p, noteAdopted, res.Ended)
	return st, nil
}

// noteContainer records a container's containerID and state under a key suffix.
func noteContainer(p *fw.Pod, st *fw.PodStatusView, container, idKey, stateKey string) {
	c := st.Container(container)
	if c == nil {
		return
	}
	p.Note(idKey, c.ContainerID)
	if stateKey == "" {
		return
	}
	switch {
	case c.State.Running != nil:
		p.Note(stateKey, "running")
	case c.State.Terminated != nil:
		p.Note(stateKey, "terminated")
	case c.State.Waiting != nil:
		p.Note(stateKey, "waiting")
	}
}

// sameInstanceID holds when a container's one ContainerStarted and its ContainerExited name the
// same containerID.
func sameInstanceID(tl *fw.Timeline, container string) error {
	starts := tl.All(fw.RuntimeEv(runtimev1.EventContainerStarted, container))
	exits := tl.All(fw.RuntimeEv(runtimev1.EventContainerExited, container))
	if len(starts) != 1 || len(exits) != 1 {
		return fmt.Errorf("%s: %d ContainerStarted and %d ContainerExited, want one of each\n\n%s", container, len(starts), len(exits), tl)
	}
	if starts[0].Runtime.ContainerID == "" || starts[0].Runtime.ContainerID != exits[0].Runtime.ContainerID {
		return fmt.Errorf("%s started as %q and exited as %q\n\n%s", container, starts[0].Runtime.ContainerID, exits[0].Runtime.ContainerID, tl)
	}
	return nil
}

// fromFirstInstance holds when every workload event of a container came from its first
// instance (instance counter 1), i.e. the process that started before the crash.
func fromFirstInstance(tl *fw.Timeline, container string) error {
	for _, e := range tl.All(func(e fw.Entry) bool {
		return e.Probe != nil && e.Probe.Container == container && e.Probe.Role == probe.RoleWorkload
	}) {
		if e.Probe.Instance != 1 {
			return fmt.Errorf("%s: a %s report came from instance %d, want only the first instance\n\n%s", container, e.Probe.Type, e.Probe.Instance, tl)
		}
	}
	return nil
}

// adoptedLateEnough fails the spec when the scenario could not tell a kept moment from one
// restarted at adoption: the first verb after the crash must come after the timer was armed by
// more than the allowance a late moment gets, and before the timer expired.
func adoptedLateEnough(o *fw.Outcome, armed time.Time, timer, allowance time.Duration) {
	adopted := noteTimeOf(o, noteAdopted)
	Expect(adopted.Sub(armed)).To(BeNumerically(">", allowance),
		"the first verb after the crash came %v after the timer was armed, within the allowance %v: too early to tell a kept moment from a restarted one\n%s", adopted.Sub(armed), allowance, o.Timeline)
	Expect(adopted.Before(armed.Add(timer))).To(BeTrue(),
		"the first verb after the crash came %v after the timer was armed, after the timer (%v) expired: the scenario did not crash while it was pending\n%s", adopted.Sub(armed), timer, o.Timeline)
}

// inWindow holds when got - from is within [want - EarlyMargin, want + Reaction + creation];
// creation is what creating an instance cost this runtime on this machine, for moments measured
// on a ContainerStarted (0 for the others).
func (s *suite) inWindow(what string, from, got time.Time, want, creation time.Duration, tl *fw.Timeline) {
	tol := s.f.Tolerances()
	gap := got.Sub(from)
	Expect(gap).To(BeNumerically(">=", want-tol.EarlyMargin.Value), "%s came %v after its start, before its moment %v (%s %v)\n%s", what, gap, want, tol.EarlyMargin.Name, tol.EarlyMargin.Value, tl)
	Expect(gap).To(BeNumerically("<=", want+tol.Reaction.Value+creation), "%s came %v after its start, later than its moment %v + %s %v + the creation of the first instance %v\n%s",
		what, gap, want, tol.Reaction.Name, tol.Reaction.Value, creation, tl)
}

// creationCost is how long the runtime took from PodStarted to the first ContainerStarted of a
// container: what creating an instance costs on this machine (0 when unknown).
func creationCost(tl *fw.Timeline, container string) time.Duration {
	ps, ok1 := tl.First(fw.RuntimeEv(runtimev1.EventPodStarted, ""))
	cs, ok2 := tl.First(fw.RuntimeEv(runtimev1.EventContainerStarted, container))
	if !ok1 || !ok2 || cs.Time.Before(ps.Time) {
		return 0
	}
	return cs.Time.Sub(ps.Time)
}

func (s *suite) registerRecovery() {
	rt := newRecoveryTiming(s.opts.Framework.Tolerances)
	s.registerCrashWhileRunning(rt)
	s.registerCrashThenStop()
	s.registerCrashDuringBackoff(rt)
	s.registerCrashBeforeDeadline(rt)
	s.registerCrashWhileStopping(rt)
	s.registerCrashDuringInit(rt)
	s.registerCrashRepeatedly()
	s.registerCrashDuringUpdate()
}

// registerCrashDuringUpdate: the supervisor is lost while an update's replacement waits for an
// old instance that ignores its stop signal. After adoption the old instance still runs the old
// definition, so status.observedGeneration stays below the update's generation until an
// instance of the new definition runs (UPD-006).
func (s *suite) registerCrashDuringUpdate() {
	const noteObservedAtAdoption = "observed-at-adoption"
	// 6 s: the crash and the adopting verb come well within the update's grace period.
	pod := func(gen string) *fw.PodBuilder {
		return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(6).
			Main("app", fw.Loop().Report().On("SIGTERM", "ignore"), fw.WithEnv(updMark, gen))
	}
	sc := &fw.Scenario{
		Short:   "crash-update",
		Profile: runtimev1.ProfileRecovery,
		Needs:   []runtimev1.Profile{spec.ProfileUpdate},
		Pod:     pod("1"),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if _, err := p.WaitFor(ctx, "app running", p.PodTimeout(), fw.AllStarted("app")); err != nil {
				return err
			}
			st, _, err := p.ValidStatus(ctx)
			if err != nil {
				return err
			}
			noteContainer(p, st, "app", noteIDBefore, "")
			if err := p.UpdateAccepted(ctx, pod("2")); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "app to receive the update's SIGTERM", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ok := tl.First(probeSignal("app", "SIGTERM"))
				return ok
			}); err != nil {
				return err
			}
			st, err = crashThenAdopt(ctx, p, func(time.Time) time.Time { return time.Now() }, nil)
			if err != nil {
				return err
			}
			p.Note(noteObservedAtAdoption, strconv.FormatInt(st.ObservedGeneration, 10))
			noteContainer(p, st, "app", noteIDAfter, "")
			// The replacement's own report too: the stop below must not end it before it
			// reported (its start is recorded before its workload reports, and on a loaded host
			// the report came later than the stop), since the specs read it.
			if _, err := p.WaitFor(ctx, "app's replacement, its report and UpdateApplied generation 2", p.PodTimeout(), func(tl *fw.Timeline) bool {
				reps := instanceReports(tl, "app")
				return recorded(runtimev1.EventContainerStarted, "app", 2)(tl) && fw.UpdateApplied(2)(tl) && len(reps) >= 2 && len(reps[1]) > 0
			}); err != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("Supervisor lost while an update replaces an instance", sc, func(get func() *fw.Outcome) {
		It("keeps observedGeneration below the update's generation until an instance of the new definition runs", req(spec.UPD006), func() {
			out := get()
			tl := out.Timeline
			notes := out.Pod.Notes()
			Expect(notes[noteIDBefore]).NotTo(BeEmpty(), "app's containerID before the update")
			Expect(notes[noteIDAfter]).To(Equal(notes[noteIDBefore]), "after adoption the old instance still runs")
			Expect(notes).To(HaveKeyWithValue(noteObservedAtAdoption, "1"), "observedGeneration after adoption, while the old instance runs the old definition")
			starts := tl.All(fw.RuntimeEv(runtimev1.EventContainerStarted, "app"))
			Expect(len(starts)).To(BeNumerically(">=", 2), "app's replacement\n%s", tl)
			applied, ok := tl.First(fw.UpdateAppliedEv(2))
			Expect(ok).To(BeTrue(), "UpdateApplied generation 2\n%s", tl)
			Expect(starts[1].Time.Before(applied.Time)).To(BeTrue(), "UpdateApplied generation 2 before the new instance started: observedGeneration reached the update's generation while the adopted, old instance ran\n%s", tl)
			reps := instanceReports(tl, "app")
			Expect(len(reps)).To(BeNumerically(">=", 2), "app: a second instance\n%s", tl)
			Expect(reps[1]).NotTo(BeEmpty(), "app: the new instance reports\n%s", tl)
			Expect(reps[1][0].Env[updMark]).To(Equal("2"), "the new instance runs the new env")
			Expect(out.Final.ObservedGeneration).To(BeEquivalentTo(2), "%s", out.Final)
		})
	})
}

// steadyAndShort is the pod of the scenarios that crash while main containers run: steady
// runs through the crash, short exits once the file go exists (while nothing supervises it).
func steadyAndShort() *fw.PodBuilder {
	return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
		Main("steady", fw.Loop().Counted()).
		Main("short", fw.ExitAfter(3, 0).WaitFor("go").Counted())
}

// waitSteadyAndShort waits until the runtime recorded the start of both.
func waitSteadyAndShort(ctx context.Context, p *fw.Pod) error {
	_, err := p.WaitFor(ctx, "both containers started", p.PodTimeout(), func(tl *fw.Timeline) bool {
		return recorded(runtimev1.EventContainerStarted, "steady", 1)(tl) && recorded(runtimev1.EventContainerStarted, "short", 1)(tl)
	})
	return err
}

// registerCrashWhileRunning: steady runs through the crash; short exits while nothing supervises
// the pod. The first verb afterwards must find the loss, adopt steady and record short's end as
// lost.
func (s *suite) registerCrashWhileRunning(rt recoveryTiming) {
	sc := &fw.Scenario{
		Short:   "crash-running",
		Profile: runtimev1.ProfileRecovery,
		Pod:     steadyAndShort(),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := waitSteadyAndShort(ctx, p); err != nil {
				return err
			}
			st, _, err := p.ValidStatus(ctx)
			if err != nil {
				return err
			}
			noteContainer(p, st, "steady", noteIDBefore, "")
			_, err = crashThenAdopt(ctx, p, func(time.Time) time.Time { return time.Now() }, func() error {
				if err := p.Touch("go"); err != nil {
					return err
				}
				return p.WaitForProbe(ctx, "short's exit report", p.PodTimeout(), fw.ProbeReported("short", probe.TypeExit))
			})
			if err != nil {
				return err
			}
			// No verb for a while: whatever the runtime records now, it does on its own.
			if err := sleepCtx(ctx, 2*rt.reaction); err != nil {
				return err
			}
			if st, _, err = p.ValidStatus(ctx); err != nil {
				return err
			}
			noteContainer(p, st, "steady", noteIDAfter, noteStateAfter)
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("Supervisor lost while main containers run", sc, func(get func() *fw.Outcome) {
		lostExit := func() fw.Entry {
			tl := get().Timeline
			e, ok := tl.First(fw.RuntimeEv(runtimev1.EventContainerExited, "short"))
			Expect(ok).To(BeTrue(), "short's end is recorded\n%s", tl)
			return e
		}
		It("detects the loss by the first verb that touches the pod and goes on supervising it", req(spec.SUP003), func() {
			out := get()
			ex := lostExit()
			crashed, adopted := noteTimeOf(out, noteCrashed), noteTimeOf(out, noteAdopted)
			Expect(ex.Time.After(crashed)).To(BeTrue(), "short's end is recorded after the crash\n%s", out.Timeline)
			Expect(ex.Time.Sub(adopted)).To(BeNumerically("<=", s.f.Tolerances().Reaction.Value),
				"short's end was recorded %v after the first verb after the crash returned (%s %v): the loss was not detected by that verb\n%s",
				ex.Time.Sub(adopted), s.f.Tolerances().Reaction.Name, s.f.Tolerances().Reaction.Value, out.Timeline)
		})
		It("keeps the running instance: same containerID, same process, no restart", req(spec.SUP004), func() {
			out := get()
			notes := out.Pod.Notes()
			Expect(notes[noteIDBefore]).NotTo(BeEmpty(), "steady's containerID before the crash")
			Expect(notes[noteIDAfter]).To(Equal(notes[noteIDBefore]), "steady's containerID after adoption")
			Expect(notes[noteStateAfter]).To(Equal("running"), "steady's state after adoption")
			Expect(out.Timeline.NotRestarted("steady")).To(Succeed())
			Expect(sameInstanceID(out.Timeline, "steady")).To(Succeed())
			// The stop signal after adoption reached the process that started before the crash.
			Expect(out.Timeline.Happened("steady's SIGTERM", probeSignal("steady", "SIGTERM"))).To(Succeed())
			Expect(fromFirstInstance(out.Timeline, "steady")).To(Succeed())
			Expect(out.Final.UID).To(Equal(out.Pod.UID))
		})
		It("records an instance that ended unobserved as ExitStatusLost, with neither exitCode nor signal", req(spec.SUP005), func() {
			out := get()
			t := out.Final.Terminated("short")
			Expect(t).NotTo(BeNil(), "%s", out.Final)
			Expect(t.Reason).To(Equal(reasonExitStatusLost), "%s", out.Final)
			Expect(t.ExitCode).To(BeNil(), "%s", out.Final)
			Expect(t.Signal).To(BeNil(), "%s", out.Final)
			ex := lostExit()
			Expect(ex.Runtime.Reason).To(Equal(reasonExitStatusLost), "%s", out.Timeline)
			Expect(ex.Runtime.ExitCode).To(BeNil(), "%s", out.Timeline)
			Expect(ex.Runtime.Signal).To(BeNil(), "%s", out.Timeline)
		})
	})
}

// registerCrashThenStop: as registerCrashWhileRunning, but the first verb after the crash is
// `stop`, not `status`. The stop request must find the loss (short's end, which nothing saw, is
// recorded by the time it returned), be accepted, and stop the adopted steady (SUP-003: every
// verb that touches the pod detects the loss, not only the ones that read its status).
func (s *suite) registerCrashThenStop() {
	const noteStopFailed = "stop-failed" // the stop request, the first verb after the crash, failed
	sc := &fw.Scenario{
		Short:   "crash-stop",
		Profile: runtimev1.ProfileRecovery,
		Pod:     steadyAndShort(),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := waitSteadyAndShort(ctx, p); err != nil {
				return err
			}
			crashed, err := p.Crash(ctx)
			if err != nil {
				return err
			}
			noteTime(p, noteCrashed, crashed)
			if err := p.Touch("go"); err != nil {
				return err
			}
			if err := p.WaitForProbe(ctx, "short's exit report", p.PodTimeout(), fw.ProbeReported("short", probe.TypeExit)); err != nil {
				return err
			}
			err = p.Stop(ctx, nil, false)
			noteTime(p, noteAdopted, time.Now())
			if err == nil {
				return nil
			}
			// The It judges the failure; the scenario still ends its pod.
			p.Note(noteStopFailed, err.Error())
			if _, _, err := p.ValidStatus(ctx); err != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("Supervisor lost, then a stop request", sc, func(get func() *fw.Outcome) {
		It("detects the loss by a stop request as the first verb after it, and carries the stop out", req(spec.SUP003), func() {
			out := get()
			tl := out.Timeline
			Expect(out.Pod.Notes()).NotTo(HaveKey(noteStopFailed), "the stop request, the first verb after the loss, failed: %s", out.Pod.Notes()[noteStopFailed])
			ex, ok := tl.First(fw.RuntimeEv(runtimev1.EventContainerExited, "short"))
			Expect(ok).To(BeTrue(), "short's end is recorded\n%s", tl)
			crashed, stopped := noteTimeOf(out, noteCrashed), noteTimeOf(out, noteAdopted)
			Expect(ex.Time.After(crashed)).To(BeTrue(), "short's end is recorded after the crash\n%s", tl)
			Expect(ex.Time.Sub(stopped)).To(BeNumerically("<=", s.f.Tolerances().Reaction.Value),
				"short's end was recorded %v after the stop request returned (%s %v): the loss was not detected by that verb\n%s",
				ex.Time.Sub(stopped), s.f.Tolerances().Reaction.Name, s.f.Tolerances().Reaction.Value, tl)
			Expect(countMatches(tl, fw.RuntimeEv(runtimev1.EventStopRequested, ""))).To(Equal(1), "one stop request\n%s", tl)
			Expect(out.Final.Reason).To(Equal(v1alpha1.ReasonStopped), "%s", out.Final)
			t := out.Final.Terminated("steady")
			Expect(t).NotTo(BeNil(), "%s", out.Final)
			Expect(t.Reason).To(Equal(v1alpha1.ReasonStopped), "steady stopped by the request\n%s", out.Final)
			Expect(tl.NotRestarted("steady")).To(Succeed())
			Expect(fromFirstInstance(tl, "steady")).To(Succeed())
		})
	})
}

// registerCrashDuringBackoff: the supervisor is lost while a container waits out its back-off;
// the restart must come at the moment decided before the loss. The restart is seen on
// ContainerStarted, so the allowance includes what creating the first instance cost; the pod
// stays unsupervised that much longer, and the back-off is longer still.
func (s *suite) registerCrashDuringBackoff(rt recoveryTiming) {
	const room = 2 // seconds for the creation cost in the unsupervised window
	backoff := float64(rt.timer + room)
	sc := &fw.Scenario{
		Short:   "crash-backoff",
		Profile: runtimev1.ProfileRecovery,
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure).Backoff(backoff, 1, backoff, 600).
			Main("flaky", fw.ExitAfter(0, ms(100)).Codes("1", "0")),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			tl, err := p.WaitFor(ctx, "the restart decision", p.PodTimeout(), recorded(runtimev1.EventContainerRestarting, "flaky", 1))
			if err != nil {
				return err
			}
			exit, _ := tl.First(fw.RuntimeEv(runtimev1.EventContainerExited, "flaky"))
			creation := creationCost(tl, "flaky")
			p.Note(noteCreation, creation.String())
			wait := min(rt.unsupervised+creation, time.Duration(backoff*float64(time.Second))-time.Second)
			_, err = crashThenAdopt(ctx, p, func(time.Time) time.Time { return exit.Time.Add(wait) }, nil)
			return err
		},
	}
	s.ordered("Supervisor lost during a restart back-off", sc, func(get func() *fw.Outcome) {
		It("restarts the container at the moment its back-off delay ends, as decided before the loss", req(spec.SUP008, spec.RST008), func() {
			out := get()
			tl := out.Timeline
			exits := tl.All(fw.RuntimeEv(runtimev1.EventContainerExited, "flaky"))
			starts := tl.All(fw.RuntimeEv(runtimev1.EventContainerStarted, "flaky"))
			Expect(starts).To(HaveLen(2), "%s", tl)
			Expect(exits).NotTo(BeEmpty(), "%s", tl)
			delay := time.Duration(backoff * float64(time.Second))
			creation, err := time.ParseDuration(out.Pod.Notes()[noteCreation])
			Expect(err).NotTo(HaveOccurred(), "the scenario recorded the creation cost")
			adoptedLateEnough(out, exits[0].Time, delay, rt.reaction+creation)
			s.inWindow("the restart", exits[0].Time, starts[1].Time, delay, creation, tl)
			Expect(out.Final.Phase).To(Equal(v1alpha1.PodSucceeded), "%s", out.Final)
		})
	})
}

// registerCrashBeforeDeadline: the supervisor is lost before activeDeadlineSeconds expire; the
// deadline must still fire at startedAt + activeDeadlineSeconds.
func (s *suite) registerCrashBeforeDeadline(rt recoveryTiming) {
	sc := &fw.Scenario{
		Short:   "crash-deadline",
		Profile: runtimev1.ProfileRecovery,
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Deadline(rt.timer).
			Main("app", fw.Loop()),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if _, err := p.WaitFor(ctx, "app started", p.PodTimeout(), recorded(runtimev1.EventContainerStarted, "app", 1)); err != nil {
				return err
			}
			st, _, err := p.ValidStatus(ctx)
			if err != nil {
				return err
			}
			if st.StartedAt == nil {
				return fmt.Errorf("status.startedAt is not set once a container started:\n%s", st)
			}
			_, err = crashThenAdopt(ctx, p, func(time.Time) time.Time { return st.StartedAt.Add(rt.unsupervised) }, nil)
			return err
		},
	}
	s.ordered("Supervisor lost before the pod's deadline", sc, func(get func() *fw.Outcome) {
		It("begins the stop sequence at startedAt + activeDeadlineSeconds, as before the loss", req(spec.SUP008, spec.DL002), func() {
			out := get()
			Expect(out.Final.StartedAt).NotTo(BeNil())
			Expect(out.Final.Reason).To(Equal(v1alpha1.ReasonDeadlineExceeded), "%s", out.Final)
			deadline := time.Duration(rt.timer) * time.Second
			adoptedLateEnough(out, *out.Final.StartedAt, deadline, rt.reaction)
			term, ok := out.Timeline.First(fw.RuntimeEv(runtimev1.EventPodTerminating, ""))
			Expect(ok).To(BeTrue(), "PodTerminating\n%s", out.Timeline)
			s.inWindow("the deadline's stop sequence", *out.Final.StartedAt, term.Time, deadline, 0, out.Timeline)
		})
	})
}

// registerCrashWhileStopping: the supervisor is lost in the middle of the stop sequence, after
// slow's preStop hook ended and its stop signal arrived, while slow lingers. The adopting
// supervisor must finish step 2 (wait for slow), then stop the sidecar (step 4), which ignores
// its stop signal, and SIGKILL it at the budget end set by the stop request before the loss.
func (s *suite) registerCrashWhileStopping(rt recoveryTiming) {
	// The reserve point (grace - 2 s) must come well after the preStop hook ended, even when an
	// exec is slow, so that slow's stop signal follows its hook and not the reserve point.
	grace := 2 * rt.timer
	linger := rt.unsupervised + time.Second // slow exits after adoption, well before the budget end
	sc := &fw.Scenario{
		Short:   "crash-stopping",
		Profile: runtimev1.ProfileRecovery,
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(grace).
			Sidecar("side", fw.Loop().On("SIGTERM", "ignore").Counted()).
			Main("slow", fw.Loop().On("SIGTERM", fmt.Sprintf("exit:%s:0", linger)).Counted(), fw.PreStop(fw.HookHandler(0, 0))),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			both := func(tl *fw.Timeline) bool {
				return recorded(runtimev1.EventContainerStarted, "side", 1)(tl) && recorded(runtimev1.EventContainerStarted, "slow", 1)(tl)
			}
			if _, err := p.WaitFor(ctx, "both containers started", p.PodTimeout(), both); err != nil {
				return err
			}
			if err := p.Stop(ctx, nil, false); err != nil {
				return err
			}
			stopped := time.Now()
			if err := p.WaitForProbe(ctx, "slow's preStop hook end and stop signal", p.PodTimeout(), func(evs []probe.Event) bool {
				hook, sig := false, false
				for _, ev := range evs {
					hook = hook || (ev.Container == "slow" && ev.Role == probe.RoleHook && ev.Type == probe.TypeHandlerEnd)
					sig = sig || (ev.Container == "slow" && ev.Role == probe.RoleWorkload && ev.Type == probe.TypeSignal && ev.Signal == "SIGTERM")
				}
				return hook && sig
			}); err != nil {
				return err
			}
			_, err := crashThenAdopt(ctx, p, func(time.Time) time.Time { return stopped.Add(rt.unsupervised) }, nil)
			return err
		},
	}
	s.ordered("Supervisor lost during the stop sequence", sc, func(get func() *fw.Outcome) {
		It("resumes the stop sequence at its first unfinished step, with the same termination reason", req(spec.SUP006), func() {
			out := get()
			tl := out.Timeline
			Expect(out.Final.Reason).To(Equal(v1alpha1.ReasonStopped), "%s", out.Final)
			for _, c := range []string{"slow", "side"} {
				t := out.Final.Terminated(c)
				Expect(t).NotTo(BeNil(), "%s", out.Final)
				Expect(t.Reason).To(Equal(v1alpha1.ReasonStopped), "%s stopped by the resumed sequence\n%s", c, out.Final)
			}
			Expect(countMatches(tl, fw.RuntimeEv(runtimev1.EventStopRequested, ""))).To(Equal(1), "one stop request\n%s", tl)
			hookEnd, ok := tl.First(fw.HandlerEvent("slow", "preStop", probe.TypeHandlerEnd))
			Expect(ok && hookEnd.Time.Before(noteTimeOf(out, noteCrashed))).To(BeTrue(),
				"the scenario crashes the supervisor after slow's preStop hook ended; it did not (the machine may be too slow)\n%s", tl)
			Expect(countMatches(tl, fw.HandlerEvent("slow", "preStop", probe.TypeHandlerStart))).To(Equal(1), "slow's preStop hook had ended before the loss: it runs once\n%s", tl)
			// Step 2 finished (slow exited) before step 4 began (the sidecar's stop signal).
			Expect(endedBefore(tl, "slow", "side's stop signal", runtimeSignal("side", "SIGTERM"))).To(Succeed())
			Expect(tl.Happened("side's stop signal reaching it", probeSignal("side", "SIGTERM"))).To(Succeed())
			for _, c := range []string{"slow", "side"} {
				Expect(tl.NotRestarted(c)).To(Succeed())
				Expect(fromFirstInstance(tl, c)).To(Succeed())
			}
		})
		It("keeps the budget end set before the loss: SIGKILL at the stop request + the grace period", req(spec.SUP008, spec.STOP008), func() {
			out := get()
			tl := out.Timeline
			stopReq, ok := tl.First(fw.RuntimeEv(runtimev1.EventStopRequested, ""))
			Expect(ok).To(BeTrue(), "StopRequested\n%s", tl)
			budget := time.Duration(grace) * time.Second
			adoptedLateEnough(out, stopReq.Time, budget, rt.reaction)
			kill, ok := tl.First(runtimeSignal("side", "SIGKILL"))
			Expect(ok).To(BeTrue(), "side ignores its stop signal and is killed at the budget end\n%s", tl)
			s.inWindow("side's SIGKILL", stopReq.Time, kill.Time, budget, 0, tl)
		})
	})
}

// registerCrashDuringInit: the supervisor is lost while the second init container runs; the
// first one, which had exited 0, must not run again.
func (s *suite) registerCrashDuringInit(rt recoveryTiming) {
	sc := &fw.Scenario{
		Short:   "crash-init",
		Profile: runtimev1.ProfileRecovery,
		Pod: fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure)).
			Init("first", fw.Exit(0).Counted()).
			Init("second", fw.ExitAfter(0, 0).WaitFor("go").Counted()).
			Main("app", fw.Exit(0)),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if _, err := p.WaitFor(ctx, "second started", p.PodTimeout(), recorded(runtimev1.EventContainerStarted, "second", 1)); err != nil {
				return err
			}
			if _, err := crashThenAdopt(ctx, p, func(c time.Time) time.Time { return c.Add(rt.reaction) }, nil); err != nil {
				return err
			}
			return p.Touch("go")
		},
	}
	s.ordered("Supervisor lost during initialisation", sc, func(get func() *fw.Outcome) {
		It("does not run again an init container that had exited 0", req(spec.SUP007), func() {
			out := get()
			tl := out.Timeline
			Expect(tl.NotRestarted("first")).To(Succeed())
			Expect(fromFirstInstance(tl, "first")).To(Succeed())
			Expect(sameInstanceID(tl, "first")).To(Succeed())
			t := out.Final.Terminated("first")
			Expect(t).NotTo(BeNil(), "%s", out.Final)
			Expect(t.Reason).To(Equal(v1alpha1.ReasonCompleted), "%s", out.Final)
			Expect(t.ExitCode).To(HaveValue(BeEquivalentTo(0)), "%s", out.Final)
			Expect(tl.ExitsBeforeStart("second", "app")).To(Succeed())
			Expect(out.Final.Phase).To(Equal(v1alpha1.PodSucceeded), "%s", out.Final)
		})
	})
}

// registerCrashRepeatedly crashes the supervisor of a busy pod (a container restarting every few
// hundred milliseconds, a sidecar with a readiness probe) at random moments; after each crash a
// verb must succeed and print a status that validates, or an event history that is well formed.
func (s *suite) registerCrashRepeatedly() {
	sc := &fw.Scenario{
		Short:   "crash-busy",
		Profile: runtimev1.ProfileRecovery,
		Pod: fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure)).
			Sidecar("side", fw.Loop(), fw.Readiness(fw.CheckExit(0), fw.ProbeTiming{PeriodSeconds: 1})).
			Main("churn", fw.ExitAfter(1, ms(150))).
			Main("steady", fw.Loop()),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if _, err := p.WaitFor(ctx, "churn restarted", p.PodTimeout(), recorded(runtimev1.EventContainerStarted, "churn", 2)); err != nil {
				return err
			}
			var moments []string
			verbs := 0
			for i := range busyCrashes {
				delay, settle := ms(rand.IntN(busyMaxDelayMS)), ms(rand.IntN(busyMaxSettleMS))
				moments = append(moments, fmt.Sprintf("%v+%v", delay, settle))
				if err := sleepCtx(ctx, delay); err != nil {
					return err
				}
				if _, err := p.Crash(ctx); err != nil {
					p.Note(noteProblem+strconv.Itoa(i), "crash: "+err.Error())
					continue
				}
				if err := sleepCtx(ctx, settle); err != nil {
					return err
				}
				// Alternate the first verb after the crash: status, then events.
				var err error
				if i%2 == 0 {
					_, _, err = p.ValidStatus(ctx)
				} else {
					var evs []runtimev1.Event
					if evs, err = s.f.RT.Events(ctx, p.Name); err == nil {
						err = eventsWellFormed(evs, false)
					}
				}
				verbs++
				if err != nil {
					p.Note(noteProblem+strconv.Itoa(i), err.Error())
				}
			}
			p.Note(noteCrashes, strconv.Itoa(busyCrashes))
			p.Note(noteVerbs, strconv.Itoa(verbs))
			p.Note(noteMoments, strings.Join(moments, " "))
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("Supervisor lost repeatedly at random moments", sc, func(get func() *fw.Outcome) {
		It("leaves a valid state after every crash: each following verb succeeds with a valid status or event history", req(spec.SUP002), func(ctx SpecContext) {
			out := get()
			notes := out.Pod.Notes()
			var problems []string
			for k, v := range notes {
				if strings.HasPrefix(k, noteProblem) {
					problems = append(problems, k+": "+v)
				}
			}
			sort.Strings(problems)
			Expect(problems).To(BeEmpty(), "crash moments (delay+settle): %s", notes[noteMoments])
			Expect(notes[noteVerbs]).To(Equal(strconv.Itoa(busyCrashes)), "a verb after every crash")
			_, _, err := out.Pod.ValidStatus(ctx)
			Expect(err).NotTo(HaveOccurred(), "the final status")
			Expect(eventsWellFormed(out.Timeline.RuntimeEvents(), true)).To(Succeed())
		})
		It("continues the event sequence across every adoption: no gap, no repeat, no event recorded twice, PodFinished once and last", req(spec.SUP009), func() {
			out := get()
			Expect(eventsRecordedOnce(out.Timeline.RuntimeEvents())).To(Succeed(), "crash moments (delay+settle): %s\n%s", out.Pod.Notes()[noteMoments], out.Timeline)
		})
		// After the last adoption the stop is an ordinary one: whatever an adopter still has to
		// clean up of an instance a lost supervisor was creating, the pod ends by the budget end
		// (SIGKILL to everything still running), not when that clean-up is done. The reference on
		// runsc once waited out a held hook's two-minute timeout here (docs/runtime.md).
		It("ends the adopted pod within the grace budget of the stop request", req(spec.STOP010, spec.SUP004), func() {
			tl := get().Timeline
			budget := time.Duration(v1alpha1.DefaultTerminationGracePeriodSeconds) * time.Second
			Expect(tl.WithinBudget("the stop sequence's start to PodFinished", fw.RuntimeEv(runtimev1.EventPodTerminating, ""),
				fw.RuntimeEv(runtimev1.EventPodFinished, ""), budget, s.f.Tolerances().Reaction)).To(Succeed())
		})
	})
}

// eventsWellFormed checks an event history read at any moment: seq 1, 2, 3 … without gaps, time
// non-decreasing, PodCreated first, nothing after PodFinished; finished also wants PodFinished
// last.
func eventsWellFormed(evs []runtimev1.Event, finished bool) error {
	if len(evs) == 0 || evs[0].Type != runtimev1.EventPodCreated {
		return fmt.Errorf("the history does not begin with PodCreated: %+v", evs)
	}
	for i, ev := range evs {
		switch {
		case ev.Seq != int64(i+1):
			return fmt.Errorf("event %d has seq %d, want %d", i, ev.Seq, i+1)
		case i > 0 && ev.Time.Before(evs[i-1].Time):
			return fmt.Errorf("event seq %d is earlier than seq %d", ev.Seq, evs[i-1].Seq)
		case ev.Type == runtimev1.EventPodFinished && i != len(evs)-1:
			return fmt.Errorf("event seq %d (%s) comes after PodFinished", evs[i+1].Seq, evs[i+1].Type)
		}
	}
	if finished && evs[len(evs)-1].Type != runtimev1.EventPodFinished {
		return fmt.Errorf("the last event is %s, want PodFinished", evs[len(evs)-1].Type)
	}
	return nil
}
