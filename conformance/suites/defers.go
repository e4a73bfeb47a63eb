package suites

import (
	"context"
	"fmt"
	"math"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Values of the defer profile that have no constant in the API package (docs/spec/defer.md).
const (
	envTerminationReason = "PODSPEC_TERMINATION_REASON"
	skipAborted          = "Aborted"
	skipBudgetExhausted  = "BudgetExhausted"
	deferFailed          = "DeferFailed"
	deferSkipped         = "DeferSkipped"
)

// deferGrace is the grace period of the defer scenarios whose budget must not run out: creating
// each defer's container can take many seconds on a loaded machine. The scenarios end when their
// defers did, not at the budget end.
const deferGrace = 90

// killTimer is the activeDeadlineSeconds and timeoutSeconds (whole seconds) of scenarios that
// kill a workload at a timer: 3 s times the slow factor, so that the workload has reported its
// start before it is killed (the runtime's ContainerStarted must match a report of the workload).
func killTimer(t fw.Tolerances) int64 { return int64(math.Ceil(3 * max(t.SlowFactor, 1))) }

// deferOutcomeRow is one pod of the defer outcome matrix: a main container "app", a defer "d"
// with onFailure: Abort that ends in a given way, and a defer "next" after it. How the stop
// sequence begins sets the termination reason; whether d's run failed shows in next (skipped
// with reason Aborted, DEFER-009) and in the condition DeferCompleted.
type deferOutcomeRow struct {
	key   string
	how   string // how the stop sequence begins, for the entry's text
	pod   *fw.PodBuilder
	d     fw.Workload
	dOpts []fw.DeferOpt
	drive func(context.Context, *fw.Pod) error

	reason    string // the pod's termination reason
	dEnd      end    // d's final state
	dStarts   int    // how many instances of d start (0: it cannot start)
	failed    bool   // d's run counts as failed
	phase     v1alpha1.PodPhase
	exitCode  int32
	decidedBy string
}

func deferOutcomeRows(killAfter int64) []deferOutcomeRow {
	never := func() *fw.PodBuilder { return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(deferGrace) }
	exits := func(code int) *fw.PodBuilder { return never().Main("app", fw.ExitAfter(code, ms(300))) }
	stopped := fw.StopWhen("app started", fw.AllStarted("app"), nil, false)
	ok := exitWith(0, v1alpha1.ReasonCompleted)
	return []deferOutcomeRow{
		{key: "stopped", how: "a stop request", pod: never().Main("app", fw.Loop()), drive: stopped,
			d: fw.ExitAfter(0, ms(200)), dEnd: ok, dStarts: 1,
			reason: v1alpha1.ReasonStopped, phase: v1alpha1.PodSucceeded, exitCode: 0},
		{key: "completed", how: "app exiting 0", pod: exits(0),
			d: fw.ExitAfter(3, ms(200)), dEnd: exitWith(3, v1alpha1.ReasonError), dStarts: 1, failed: true,
			reason: v1alpha1.ReasonCompleted, phase: v1alpha1.PodSucceeded, exitCode: 0, decidedBy: "app"},
		{key: "failed", how: "app exiting 3", pod: exits(3),
			d: fw.Loop().CrashAfter(ms(200)), dEnd: killedBy("SIGSEGV", v1alpha1.ReasonSignaled), dStarts: 1, failed: true,
			reason: "Failed", phase: v1alpha1.PodFailed, exitCode: 3, decidedBy: "app"},
		{key: "deadline", how: "the active deadline", pod: never().Deadline(killAfter).Main("app", fw.Loop()),
			d: fw.Loop().On("SIGTERM", "ignore"), dOpts: []fw.DeferOpt{fw.DeferTimeout(killAfter)},
			dEnd: killedBy("SIGKILL", v1alpha1.ReasonTimeout), dStarts: 1, failed: true,
			reason: v1alpha1.ReasonDeadlineExceeded, phase: v1alpha1.PodFailed, exitCode: 1},
		{key: "nostart", how: "app exiting 0", pod: exits(0),
			d: fw.Exit(0), dOpts: []fw.DeferOpt{fw.DeferCommand("/no/such/program")},
			dEnd: end{reason: v1alpha1.ReasonStartError}, dStarts: 0, failed: true,
			reason: v1alpha1.ReasonCompleted, phase: v1alpha1.PodSucceeded, exitCode: 0, decidedBy: "app"},
		{key: "retried", how: "app exiting 0", pod: fastBackoff(exits(0)),
			d: fw.ExitAfter(0, ms(200)).Codes("1", "0"), dOpts: []fw.DeferOpt{fw.DeferRestart(v1alpha1.RestartPolicyOnFailure)},
			dEnd: ok, dStarts: 2,
			reason: v1alpha1.ReasonCompleted, phase: v1alpha1.PodSucceeded, exitCode: 0, decidedBy: "app"},
		{key: lateRetryRow, how: "app exiting 0", pod: exits(0).Backoff(float64(lateRetryBackoff(killAfter)), 1, float64(lateRetryBackoff(killAfter)), 600),
			d: fw.ExitAfter(1, ms(200)), dOpts: []fw.DeferOpt{fw.DeferRestart(v1alpha1.RestartPolicyOnFailure), fw.DeferTimeout(killAfter)},
			dEnd: exitWith(1, v1alpha1.ReasonError), dStarts: 1, failed: true,
			reason: v1alpha1.ReasonCompleted, phase: v1alpha1.PodSucceeded, exitCode: 0, decidedBy: "app"},
	}
}

// lateRetryRow is the row whose defer d fails under restartPolicy OnFailure with a back-off
// that ends long after the limit of its run (its timeoutSeconds): the retry cannot start
// before the limit, so it must not start, and d's run fails with its one attempt (DEFER-017).
const lateRetryRow = "lateretry"

// lateRetryBackoff is the pod's back-off delay (seconds) in the lateretry row: twice d's
// timeoutSeconds, so the retry's moment is a whole timeout after the limit of the run.
func lateRetryBackoff(killAfter int64) int64 { return 2 * killAfter }

// String describes the row for its table entries.
func (r deferOutcomeRow) String() string {
	run := "succeeds"
	if r.failed {
		run = "fails"
	}
	ends := r.dEnd.String()
	if r.dEnd.exit == nil && r.dEnd.signal == "" {
		ends = "no process (" + r.dEnd.reason + ")"
	}
	return "stop sequence begun by " + r.how + ", d ends with " + ends + " and its run " + run
}

// deferLimitRow is one pod where a defer "long" that ignores SIGTERM reaches the limit of its
// run, followed by a defer "late" of the same phase. The limit is its timeoutSeconds (counted
// from its ContainerStarted), or the reserve point or the budget end of a second stop request
// that shortens the budget while long runs (STOP-012: counted from that StopRequested).
type deferLimitRow struct {
	key     string
	limit   string // what the limit is, for the entry's text
	phase   v1alpha1.DeferPhase
	timeout int64         // long's timeoutSeconds (0: none)
	grace   int64         // grace period of the second stop request (0: the app exits, no request)
	after   time.Duration // from the reference event to the limit
	lateRun bool          // late's turn comes before its own limit, so it runs
}

func deferLimitRows(killAfter int64) []deferLimitRow {
	return []deferLimitRow{
		{key: "timeout", limit: "its timeoutSeconds", phase: v1alpha1.DeferAfterStop, timeout: killAfter, after: time.Duration(killAfter) * time.Second, lateRun: true},
		{key: "reserve", limit: "the reserve point", phase: v1alpha1.DeferBeforeStop, grace: 4,
			after: (4 - time.Duration(v1alpha1.MinimumStopWindowSeconds)) * time.Second},
		{key: "budget", limit: "the budget end", phase: v1alpha1.DeferAfterStop, grace: 3, after: 3 * time.Second},
	}
}

func (r deferLimitRow) pod() *fw.PodBuilder {
	b := fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(deferGrace)
	if r.grace == 0 {
		b.Main("app", fw.ExitAfter(0, ms(300)))
	} else {
		b.Main("app", fw.Loop())
	}
	opts := []fw.DeferOpt{fw.DeferPhase(r.phase)}
	if r.timeout > 0 {
		opts = append(opts, fw.DeferTimeout(r.timeout))
	}
	return b.Defer("long", fw.Loop().On("SIGTERM", "ignore"), opts...).
		Defer("late", fw.ExitAfter(0, ms(100)), fw.DeferPhase(r.phase))
}

// drive stops the pod once app runs, then shortens the budget once long runs.
func (r deferLimitRow) drive() func(context.Context, *fw.Pod) error {
	if r.grace == 0 {
		return nil
	}
	return func(ctx context.Context, p *fw.Pod) error {
		if err := fw.StopWhen("app started", fw.AllStarted("app"), nil, false)(ctx, p); err != nil {
			return err
		}
		if _, err := p.WaitFor(ctx, "long started", p.PodTimeout(), fw.AllStarted("long")); err != nil {
			return err
		}
		return p.Stop(ctx, i64(r.grace), false)
	}
}

// limitFrom matches the event the limit of long's run is counted from.
func (r deferLimitRow) limitFrom(tl *fw.Timeline) fw.Matcher {
	if r.grace == 0 {
		return fw.RuntimeEv(runtimev1.EventContainerStarted, "long")
	}
	reqs := tl.All(fw.RuntimeEv(runtimev1.EventStopRequested, ""))
	Expect(reqs).To(HaveLen(2), "two stop requests\n%s", tl)
	seq := reqs[1].Runtime.Seq
	return func(e fw.Entry) bool { return e.Runtime != nil && e.Runtime.Seq == seq }
}

// workloadReport returns the first report of a container's own process, failing without one.
func workloadReport(tl *fw.Timeline, container string) *probe.Report {
	for _, e := range tl.All(fw.ProbeEvent(container, probe.TypeReport)) {
		if e.Probe.Role == probe.RoleWorkload {
			return e.Probe.Report
		}
	}
	Fail("no workload report from " + container + "\n" + tl.String())
	return nil
}

// expectEnd checks a container's final state against the expected end; a failure shows the
// final status and the merged timeline.
func expectEnd(out *fw.Outcome, name string, want end) {
	st, tl := out.Final, out.Timeline
	t := st.Terminated(name)
	Expect(t).NotTo(BeNil(), "%s terminated\n%s\n%s", name, st, tl)
	if want.exit != nil {
		Expect(t.ExitCode).To(HaveValue(Equal(*want.exit)), "%s exitCode\n%s\n%s", name, st, tl)
	} else {
		Expect(t.ExitCode).To(BeNil(), "%s exitCode must be unset\n%s\n%s", name, st, tl)
	}
	if want.signal != "" {
		Expect(t.Signal).To(Equal(signal(want.signal)), "%s signal\n%s\n%s", name, st, tl)
	} else {
		Expect(t.Signal).To(BeNil(), "%s signal must be unset\n%s\n%s", name, st, tl)
	}
	Expect(t.Reason).To(Equal(want.reason), "%s reason\n%s\n%s", name, st, tl)
}

// expectSkipped checks that a defer never started and is recorded as skipped with reason.
func expectSkipped(out *fw.Outcome, name, reason string) {
	Expect(out.Timeline.NeverStarted(name)).To(Succeed())
	c := out.Final.Container(name)
	Expect(c).NotTo(BeNil(), "status of %s\n%s", name, out.Final)
	Expect(c.State.Skipped).NotTo(BeNil(), "%s is skipped\n%s\n%s", name, out.Final, out.Timeline)
	Expect(c.State.Skipped.Reason).To(Equal(reason), "%s\n%s\n%s", name, out.Final, out.Timeline)
}

// expectDeferCompleted checks the condition DeferCompleted: True, or False with reason.
func expectDeferCompleted(out *fw.Outcome, reason string) {
	st, tl := out.Final, out.Timeline
	c := st.Condition(v1alpha1.PodDeferCompleted)
	Expect(c).NotTo(BeNil(), "condition DeferCompleted\n%s", st)
	if reason == "" {
		Expect(c.Status).To(Equal(v1alpha1.ConditionTrue), "DeferCompleted\n%s\n%s", st, tl)
		return
	}
	Expect(c.Status).To(Equal(v1alpha1.ConditionFalse), "DeferCompleted\n%s\n%s", st, tl)
	Expect(c.Reason).To(Equal(reason), "DeferCompleted's reason\n%s\n%s", st, tl)
}

// mainStopStep matches the first sign of step 2 of the stop sequence for the named main
// containers: a preStop hook starting (reported by the hook or recorded by the runtime) or a stop
// signal (sent by the runtime or received by the workload).
func mainStopStep(mains ...string) fw.Matcher {
	return func(e fw.Entry) bool {
		for _, c := range mains {
			if fw.HandlerEvent(c, "preStop", probe.TypeHandlerStart)(e) || fw.ProbeEvent(c, probe.TypeSignal)(e) {
				return true
			}
			if r := e.Runtime; r != nil && r.Container == c &&
				(r.Type == runtimev1.EventSignalSent || (r.Type == runtimev1.EventHookStarted && r.Hook == "preStop")) {
				return true
			}
		}
		return false
	}
}

// registerDefers declares the specs of the defer profile beyond their place in the stop
// sequence (deferorder.go): the order of the defers, what they see, how their runs end, and what
// the runtime records about them.
func (s *suite) registerDefers() {
	s.registerDeferSequence()
	s.registerDeferOutcomes()
	s.registerDeferLimits()
	s.registerDeferPolicies()
	s.registerDeferCrash()
	s.registerDeferCrashLate()
}

func (s *suite) registerDeferSequence() {
	// Two BeforeStop and two AfterStop defers, declared interleaved (a1 takes the default phase).
	// app has a preStop hook and plain none, so a runtime that starts step 2 for containers
	// without hooks while BeforeStop defers run shows. The defers read what app and b1 wrote.
	mount := fw.DeferMount("data", "/data", false)
	before := fw.DeferPhase(v1alpha1.DeferBeforeStop)
	seq := &fw.Scenario{
		Short:   "defer-seq",
		Profile: spec.ProfileDefer,
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(deferGrace).EmptyDir("data", false).
			Main("app", fw.Loop().Write("/data/payload", "from-app").Report(),
				fw.WithMount("data", "/data", false), fw.PreStop(fw.HookHandler(ms(200), 0))).
			Main("plain", fw.Loop()).
			Defer("a1", fw.ExitAfter(0, ms(300)).Report().Read("/data/payload"), mount).
			Defer("b1", fw.ExitAfter(0, ms(300)).Report().Read("/data/payload").Write("/data/from-b1", "from-b1"), before, mount).
			Defer("a2", fw.ExitAfter(0, ms(300)).Report().Read("/data/from-b1"), fw.DeferPhase(v1alpha1.DeferAfterStop), mount).
			Defer("b2", fw.ExitAfter(0, ms(300)), before),
		// app reports after writing /data/payload: stop only then.
		Drive: fw.StopWhen("app wrote its payload", func(tl *fw.Timeline) bool {
			_, ok := tl.First(fw.ProbeEvent("app", probe.TypeReport))
			return ok && tl.Started("plain")
		}, nil, false),
	}
	s.ordered("Defer containers in a graceful stop sequence", seq, func(get func() *fw.Outcome) {
		It("end every BeforeStop defer's run before a main container's preStop hook starts or stop signal is sent", req(spec.HB009), func() {
			tl := get().Timeline
			for _, d := range []string{"b1", "b2"} {
				Expect(endedBefore(tl, d, "the first preStop hook or stop signal of a main container", mainStopStep("app", "plain"))).To(Succeed())
			}
		})
		It("run one at a time: BeforeStop in list order, then AfterStop in list order", req(spec.HB010), func() {
			tl := get().Timeline
			order := []string{"b1", "b2", "a1", "a2"}
			for i := 1; i < len(order); i++ {
				Expect(tl.ExitsBeforeStart(order[i-1], order[i])).To(Succeed())
			}
		})
		It("see in their volumes what the pod's other containers wrote there", req(spec.DEFER016), func() {
			tl := get().Timeline
			for d, file := range map[string]string{"b1": "/data/payload", "a1": "/data/payload", "a2": "/data/from-b1"} {
				r := workloadReport(tl, d)
				Expect(r.FileErrors).NotTo(HaveKey(file), "%s reads %s", d, file)
				want := "from-app"
				if file == "/data/from-b1" {
					want = "from-b1"
				}
				Expect(r.Files).To(HaveKeyWithValue(file, want), "%s reads %s", d, file)
			}
		})
		It("set DeferCompleted to True when every run succeeded", req(spec.DEFER012True), func() {
			expectDeferCompleted(get(), "")
		})
	})
}

func (s *suite) registerDeferOutcomes() {
	rows := deferOutcomeRows(killTimer(s.opts.Framework.Tolerances))
	scen := map[string]*fw.Scenario{}
	for _, r := range rows {
		b := r.pod.Defer("d", r.d.Report(), append([]fw.DeferOpt{fw.DeferOnFailure(v1alpha1.DeferAbort)}, r.dOpts...)...).
			Defer("next", fw.ExitAfter(0, ms(100)))
		scen[r.key] = s.scenarios.Add(&fw.Scenario{Short: "defer-out-" + r.key, Profile: spec.ProfileDefer, Pod: b, Drive: r.drive})
	}
	entries := func(keep func(deferOutcomeRow) bool) []TableEntry {
		return rowEntries(rows, func(r deferOutcomeRow) string { return r.key + ": " + r.String() }, keep)
	}
	await := func(ctx context.Context, r deferOutcomeRow) *fw.Outcome { return s.await(ctx, scen[r.key]) }
	Describe("How a defer's run ends", profileLabel(spec.ProfileDefer), func() {
		// Every row whose defer starts is a stop sequence with another termination reason
		// (Completed, Failed, DeadlineExceeded, Stopped) in which the defer ran (DEFER-002).
		DescribeTable("the defer sees the termination reason in PODSPEC_TERMINATION_REASON", req(spec.DEFER003, spec.DEFER002),
			func(ctx SpecContext, r deferOutcomeRow) {
				out := await(ctx, r)
				Expect(out.Final.Reason).To(Equal(r.reason), "status.reason\n%s", out.Final)
				reports := out.Timeline.All(fw.ProbeEvent("d", probe.TypeReport))
				Expect(reports).To(HaveLen(r.dStarts), "one report per instance of d\n%s", out.Timeline)
				for _, e := range reports {
					Expect(e.Probe.Report.Env).To(HaveKeyWithValue(envTerminationReason, r.reason), "environment of d\n%s", out.Timeline)
				}
			}, entries(func(r deferOutcomeRow) bool { return r.dStarts > 0 }))
		DescribeTable("the run fails when its last attempt exits non-zero, is killed, is killed at its limit or cannot start",
			req(spec.DEFER007),
			func(ctx SpecContext, r deferOutcomeRow) {
				out := await(ctx, r)
				expectEnd(out, "d", r.dEnd)
				Expect(out.Timeline.Instances("d")).To(HaveLen(r.dStarts), "instances of d\n%s", out.Timeline)
				// d has onFailure: Abort, so next runs exactly when d's run did not fail.
				if r.failed {
					expectSkipped(out, "next", skipAborted)
				} else {
					Expect(out.Timeline.NotRestarted("next")).To(Succeed())
					expectEnd(out, "next", exitWith(0, v1alpha1.ReasonCompleted))
				}
			}, entries(nil))
		DescribeTable("the defer's result changes neither phase, exitCode nor decidedBy, and restarts nothing", req(spec.DEFER011),
			func(ctx SpecContext, r deferOutcomeRow) {
				out := await(ctx, r)
				st := out.Final
				Expect(st.Phase).To(Equal(r.phase), "status.phase\n%s", st)
				Expect(st.ExitCode).To(HaveValue(Equal(r.exitCode)), "status.exitCode\n%s", st)
				Expect(st.DecidedBy).To(Equal(r.decidedBy), "status.decidedBy\n%s", st)
				Expect(out.Timeline.NotRestarted("app")).To(Succeed())
			}, entries(nil))
		DescribeTable("DeferCompleted is True when every run succeeded, else False with DeferFailed when a run failed",
			req(spec.DEFER012True, spec.DEFER012Failed),
			func(ctx SpecContext, r deferOutcomeRow) {
				want := ""
				if r.failed {
					want = deferFailed // next was skipped too: a failure outweighs a skip
				}
				expectDeferCompleted(await(ctx, r), want)
			}, entries(nil))
		It("no retry starts when the pod's back-off after a failed attempt would end after the limit of the run", req(spec.DEFER017),
			func(ctx SpecContext) {
				killAfter := killTimer(s.opts.Framework.Tolerances)
				var late deferOutcomeRow
				for _, r := range rows {
					if r.key == lateRetryRow {
						late = r
					}
				}
				out := await(ctx, late)
				tl := out.Timeline
				starts := tl.All(fw.RuntimeEv(runtimev1.EventContainerStarted, "d"))
				exits := tl.All(fw.RuntimeEv(runtimev1.EventContainerExited, "d"))
				Expect(starts).To(HaveLen(1), "d: its one failed attempt, no retry\n%s", tl)
				Expect(exits).To(HaveLen(1), "d's attempt ended\n%s", tl)
				// The setup: the attempt failed so soon after it started that the retry's moment
				// (its exit plus the back-off) lies after the limit (its start plus timeoutSeconds).
				timeout, backoff := time.Duration(killAfter)*time.Second, time.Duration(lateRetryBackoff(killAfter))*time.Second
				Expect(exits[0].Time.Add(backoff).After(starts[0].Time.Add(timeout))).To(BeTrue(),
					"d's attempt ended %v after it started: a retry after the back-off %v could start before the limit %v\n%s",
					exits[0].Time.Sub(starts[0].Time), backoff, timeout, tl)
				Expect(tl.Instances("d")).To(HaveLen(1), "one instance of d ran\n%s", tl)
				c := out.Final.Container("d")
				Expect(c).NotTo(BeNil(), "%s", out.Final)
				Expect(c.RestartCount).To(BeZero(), "d's restartCount\n%s", out.Final)
				// The run ended as failed with its one attempt: d's onFailure: Abort skipped next.
				expectEnd(out, "d", late.dEnd)
				expectSkipped(out, "next", skipAborted)
			})
	})
}

func (s *suite) registerDeferLimits() {
	rows := deferLimitRows(killTimer(s.opts.Framework.Tolerances))
	scen := map[string]*fw.Scenario{}
	for _, r := range rows {
		scen[r.key] = s.scenarios.Add(&fw.Scenario{Short: "defer-limit-" + r.key, Profile: spec.ProfileDefer, Pod: r.pod(), Drive: r.drive()})
	}
	entries := func(keep func(deferLimitRow) bool) []TableEntry {
		return rowEntries(rows, func(r deferLimitRow) string {
			return r.key + ": long reaches " + r.limit + " (" + string(r.phase) + ")"
		}, keep)
	}
	await := func(ctx context.Context, r deferLimitRow) *fw.Outcome { return s.await(ctx, scen[r.key]) }
	Describe("The limit of a defer's run", profileLabel(spec.ProfileDefer), func() {
		DescribeTable("a defer still running at its limit is killed with SIGKILL then, and ends with reason Timeout", req(spec.DEFER005),
			func(ctx SpecContext, r deferLimitRow) {
				out := await(ctx, r)
				tl, tol := out.Timeline, s.f.Tolerances()
				from := r.limitFrom(tl)
				kill := runtimeSignal("long", "SIGKILL")
				Expect(tl.AtLeast("long's limit to its SIGKILL", from, kill, r.after, tol.EarlyMargin)).To(Succeed())
				Expect(tl.WithinBudget("long's limit to its SIGKILL", from, kill, r.after, tol.Reaction)).To(Succeed())
				// Ground truth: the workload never exited by itself; its one instance ended.
				Expect(tl.NeverHappened("long's workload exiting", fw.ProbeEvent("long", probe.TypeExit))).To(Succeed())
				Expect(tl.NotRestarted("long")).To(Succeed())
				expectEnd(out, "long", killedBy("SIGKILL", v1alpha1.ReasonTimeout))
				if r.lateRun {
					Expect(tl.ExitsBeforeStart("long", "late")).To(Succeed())
				}
			}, entries(nil))
		DescribeTable("a defer whose turn comes after the limit of its run is skipped with BudgetExhausted, never started",
			req(spec.DEFER006),
			func(ctx SpecContext, r deferLimitRow) {
				out := await(ctx, r)
				Expect(out.Timeline.Started("long")).To(BeTrue(), "long ran before late's turn\n%s", out.Timeline)
				expectSkipped(out, "late", skipBudgetExhausted)
			}, entries(func(r deferLimitRow) bool { return !r.lateRun }))
	})
}

func (s *suite) registerDeferPolicies() {
	// onFailure: Abort in the BeforeStop phase: the later defers of both phases are skipped, the
	// earlier one is not, and the main containers and the sidecar are still stopped.
	before := fw.DeferPhase(v1alpha1.DeferBeforeStop)
	abort := &fw.Scenario{
		Short:   "defer-abort",
		Profile: spec.ProfileDefer,
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(deferGrace).
			Sidecar("side", fw.Loop()).
			Main("app", fw.Loop()).
			Defer("zero", fw.ExitAfter(0, ms(100)), before).
			Defer("first", fw.ExitAfter(7, ms(100)), before, fw.DeferOnFailure(v1alpha1.DeferAbort)).
			Defer("second", fw.ExitAfter(0, ms(100)), before).
			Defer("third", fw.ExitAfter(0, ms(100)), fw.DeferPhase(v1alpha1.DeferAfterStop)),
		Drive: fw.StopWhen("side and app started", fw.AllStarted("side", "app"), nil, false),
	}
	s.ordered("A failed defer with onFailure: Abort", abort, func(get func() *fw.Outcome) {
		It("skips every later defer with reason Aborted and goes on with the stop sequence", req(spec.DEFER009), func() {
			out := get()
			expectEnd(out, "zero", exitWith(0, v1alpha1.ReasonCompleted))
			expectEnd(out, "first", exitWith(7, v1alpha1.ReasonError))
			for _, d := range []string{"second", "third"} {
				expectSkipped(out, d, skipAborted)
			}
			for _, c := range []string{"app", "side"} {
				Expect(out.Timeline.Happened(c+" receives its stop signal", probeSignal(c, "SIGTERM"))).To(Succeed())
				expectEnd(out, c, exitWith(0, v1alpha1.ReasonStopped))
			}
		})
	})

	// onFailure: Continue after an exit 3 and after a kill at its limit: the next defer runs,
	// each once the previous run ended.
	cont := fw.DeferOnFailure(v1alpha1.DeferContinue)
	continued := &fw.Scenario{
		Short:   "defer-continue",
		Profile: spec.ProfileDefer,
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(deferGrace).
			Main("app", fw.ExitAfter(0, ms(300))).
			Defer("f1", fw.ExitAfter(3, ms(100)), cont).
			Defer("f2", fw.Loop().On("SIGTERM", "ignore"), cont, fw.DeferTimeout(killTimer(s.opts.Framework.Tolerances))).
			Defer("last", fw.ExitAfter(0, ms(100))),
	}
	s.ordered("A failed defer with onFailure: Continue", continued, func(get func() *fw.Outcome) {
		It("is followed by the next defer", req(spec.DEFER010), func() {
			out := get()
			expectEnd(out, "f1", exitWith(3, v1alpha1.ReasonError))
			expectEnd(out, "f2", killedBy("SIGKILL", v1alpha1.ReasonTimeout))
			for _, d := range []string{"f2", "last"} {
				Expect(out.Timeline.NotRestarted(d)).To(Succeed())
			}
			expectEnd(out, "last", exitWith(0, v1alpha1.ReasonCompleted))
		})
		It("starts the next defer only once the previous run ended, by exit or by a kill at its limit", req(spec.HB010), func() {
			tl := get().Timeline
			Expect(tl.ExitsBeforeStart("f1", "f2")).To(Succeed())
			Expect(tl.ExitsBeforeStart("f2", "last")).To(Succeed())
		})
	})

	// Retries: flaky fails once and is retried after the pod's 1 s back-off; once fails with its
	// own restartPolicy Never although the pod's is OnFailure; ok succeeds under OnFailure. The
	// sidecar lingers 2 s after its stop signal, so a defer started again after its run ended
	// would show.
	const backoff = time.Second
	onFailure := fw.DeferRestart(v1alpha1.RestartPolicyOnFailure)
	retry := &fw.Scenario{
		Short:   "defer-retry",
		Profile: spec.ProfileDefer,
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure).Backoff(backoff.Seconds(), 1, backoff.Seconds(), 600).Grace(deferGrace).
			Sidecar("side", fw.Loop().On("SIGTERM", "exit:2s:0")).
			Main("app", fw.ExitAfter(0, ms(300))).
			Defer("flaky", fw.ExitAfter(0, ms(100)).Codes("1", "0"), onFailure, fw.DeferTimeout(20)).
			Defer("once", fw.ExitAfter(3, ms(100)), fw.DeferRestart(v1alpha1.RestartPolicyNever)).
			Defer("ok", fw.ExitAfter(0, ms(100)), onFailure),
	}
	s.ordered("Defer containers with restartPolicy OnFailure and Never", retry, func(get func() *fw.Outcome) {
		It("retry a failed attempt under OnFailure after the pod's back-off delay", req(spec.DEFER008), func() {
			out := get()
			tl, tol := out.Timeline, s.f.Tolerances()
			Expect(tl.Restarted("flaky", 1)).To(Succeed())
			exits := tl.All(fw.RuntimeEv(runtimev1.EventContainerExited, "flaky"))
			starts := tl.All(fw.RuntimeEv(runtimev1.EventContainerStarted, "flaky"))
			Expect(exits).NotTo(BeEmpty(), "%s", tl)
			Expect(starts).To(HaveLen(2), "%s", tl)
			gap := starts[1].Time.Sub(exits[0].Time)
			Expect(gap).To(BeNumerically(">=", backoff-tol.EarlyMargin.Value),
				"the retry started %v after the failed attempt, before the back-off %v (%s %v)\n%s", gap, backoff, tol.EarlyMargin.Name, tol.EarlyMargin.Value, tl)
			c := out.Final.Container("flaky")
			Expect(c).NotTo(BeNil(), "%s", out.Final)
			Expect(c.RestartCount).To(BeEquivalentTo(1), "flaky's restartCount\n%s", out.Final)
			Expect(c.LastState.Terminated).NotTo(BeNil(), "flaky's lastState\n%s", out.Final)
			Expect(c.LastState.Terminated.ExitCode).To(HaveValue(BeEquivalentTo(1)), "flaky's failed attempt\n%s", out.Final)
			expectEnd(out, "flaky", exitWith(0, v1alpha1.ReasonCompleted))
		})
		It("never start a defer again once its run has ended", req(spec.DEFER004), func() {
			tl := get().Timeline
			Expect(tl.Instances("flaky")).To(HaveLen(2), "flaky: one failed attempt and its retry\n%s", tl)
			Expect(countMatches(tl, fw.RuntimeEv(runtimev1.EventContainerStarted, "flaky"))).To(Equal(2), "%s", tl)
			for _, d := range []string{"once", "ok"} {
				Expect(tl.NotRestarted(d)).To(Succeed())
			}
		})
	})
}

// crashWhileDeferRuns is the Drive of the defer scenarios that lose the supervisor: it stops
// the pod once app runs, waits until the defer d (a workload waiting for the marker "go") runs,
// crashes the supervisor, lets d's attempt exit while nothing supervises the pod, checks that
// exit with exited (given the time of d's ContainerStarted; nil: no check), and adopts the pod
// with `status` at adoptAt(that time), but never before d's process is gone.
func crashWhileDeferRuns(d string, adoptAt func(started time.Time) time.Time, exited func(started time.Time) error) func(context.Context, *fw.Pod) error {
	return func(ctx context.Context, p *fw.Pod) error {
		if err := fw.StopWhen("app started", fw.AllStarted("app"), nil, false)(ctx, p); err != nil {
			return err
		}
		tl, err := p.WaitFor(ctx, d+" running", p.PodTimeout(), func(tl *fw.Timeline) bool {
			return tl.Started(d) && recorded(runtimev1.EventContainerStarted, d, 1)(tl)
		})
		if err != nil {
			return err
		}
		started, _ := tl.First(fw.RuntimeEv(runtimev1.EventContainerStarted, d))
		var gone time.Time
		until := func(time.Time) time.Time {
			if at := adoptAt(started.Time); at.After(gone) {
				return at
			}
			return gone
		}
		_, err = crashThenAdopt(ctx, p, until, func() error {
			if err := p.Touch("go"); err != nil {
				return err
			}
			if err := p.WaitForProbe(ctx, d+"'s exit report", p.PodTimeout(), fw.ProbeReported(d, probe.TypeExit)); err != nil {
				return err
			}
			// The report comes just before the exit: let the process be gone before any verb.
			gone = time.Now().Add(time.Second)
			if exited == nil {
				return nil
			}
			return exited(started.Time)
		})
		return err
	}
}

// registerDeferCrash loses the pod's supervisor (`crash`, profile recovery) while the second of
// three defers runs, and lets that defer's attempt end (exit 0) while nothing supervises the
// pod. The first verb afterwards adopts the pod: what it knows of first and second is what the
// runtime persisted. second has onFailure: Abort, so a lost attempt counted as a failure would
// skip third.
func (s *suite) registerDeferCrash() {
	sc := &fw.Scenario{
		Short:   "defer-crash",
		Profile: spec.ProfileDefer,
		Needs:   []runtimev1.Profile{runtimev1.ProfileRecovery},
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(deferGrace).
			Main("app", fw.Loop()).
			Defer("first", fw.ExitAfter(0, ms(100))).
			Defer("second", fw.ExitAfter(0, 0).WaitFor("go").Counted(), fw.DeferOnFailure(v1alpha1.DeferAbort)).
			Defer("third", fw.ExitAfter(0, ms(100))),
		Drive: crashWhileDeferRuns("second", func(time.Time) time.Time { return time.Time{} }, nil),
	}
	s.ordered("Defer containers after a supervisor loss", sc, func(get func() *fw.Outcome) {
		It("resume at the first defer whose run had not ended", req(spec.DEFER014), func() {
			out := get()
			tl := out.Timeline
			Expect(tl.NotRestarted("first")).To(Succeed())
			inst := tl.Instances("second")
			Expect(inst).To(HaveLen(2), "second: the attempt the loss hid, then a new one\n%s", tl)
			crashed := noteTimeOf(out, noteCrashed)
			Expect(inst[1].Start.After(crashed)).To(BeTrue(), "second started again after the crash\n%s", tl)
			Expect(tl.NotRestarted("third")).To(Succeed())
			Expect(tl.ExitsBeforeStart("second", "third")).To(Succeed())
			Expect(out.Final.Reason).To(Equal(v1alpha1.ReasonStopped), "the same stop sequence went on\n%s", out.Final)
		})
		It("knew, after the loss, the first defer's ended run and the second's started attempt", req(spec.DEFER013), func() {
			out := get()
			expectEnd(out, "first", exitWith(0, v1alpha1.ReasonCompleted))
			starts := out.Timeline.All(fw.RuntimeEv(runtimev1.EventContainerStarted, "second"))
			Expect(starts).NotTo(BeEmpty(), "%s", out.Timeline)
			c := out.Final.Container("second")
			Expect(c).NotTo(BeNil(), "%s", out.Final)
			lost := c.LastState.Terminated
			Expect(lost).NotTo(BeNil(), "second's lastState is the attempt the loss hid\n%s\n%s", out.Final, out.Timeline)
			Expect(lost.ContainerID).To(Equal(starts[0].Runtime.ContainerID), "second's lastState\n%s\n%s", out.Final, out.Timeline)
			Expect(lost.ExitCode).To(BeNil(), "nobody saw the attempt's exit code\n%s", out.Final)
			Expect(lost.Signal).To(BeNil(), "nobody saw the attempt's end\n%s", out.Final)
		})
		It("start a defer whose attempt ended unobserved again, as a new instance that is no failure of its run", req(spec.DEFER015), func() {
			out := get()
			starts := out.Timeline.All(fw.RuntimeEv(runtimev1.EventContainerStarted, "second"))
			Expect(starts).To(HaveLen(2), "%s", out.Timeline)
			Expect(starts[1].Runtime.ContainerID).NotTo(Equal(starts[0].Runtime.ContainerID), "a new instance has a new containerID\n%s", out.Timeline)
			Expect(out.Timeline.Happened("second's instance 2 reports", func(e fw.Entry) bool {
				return fw.ProbeEvent("second", probe.TypeStart)(e) && e.Probe.Instance == 2
			})).To(Succeed())
			expectEnd(out, "second", exitWith(0, v1alpha1.ReasonCompleted))
			expectEnd(out, "third", exitWith(0, v1alpha1.ReasonCompleted))
			expectDeferCompleted(out, "")
		})
	})
}

// registerDeferCrashLate loses the pod's supervisor while the defer "lost" runs, lets that
// attempt end (exit 0) while nothing supervises the pod, and adopts the pod only after the limit
// of lost's run (its start plus timeoutSeconds) has passed: no time is left to start lost again,
// so its run failed (DEFER-007), and lost has onFailure: Abort, so the defer after it is skipped.
func (s *suite) registerDeferCrashLate() {
	tol := s.opts.Framework.Tolerances
	// Long enough for the crash and the attempt's end to come well before the limit.
	timeout := 2 * killTimer(tol)
	limit := time.Duration(timeout) * time.Second
	sc := &fw.Scenario{
		Short:   "defer-crash-late",
		Profile: spec.ProfileDefer,
		Needs:   []runtimev1.Profile{runtimev1.ProfileRecovery},
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(deferGrace).
			Main("app", fw.Loop()).
			Defer("lost", fw.ExitAfter(0, 0).WaitFor("go").Counted(), fw.DeferTimeout(timeout), fw.DeferOnFailure(v1alpha1.DeferAbort)).
			Defer("after", fw.ExitAfter(0, ms(100))),
		// Adopt once the limit has passed by more than a reaction tolerance.
		Drive: crashWhileDeferRuns("lost", func(started time.Time) time.Time { return started.Add(limit + tol.Reaction.Value) },
			func(started time.Time) error {
				if time.Since(started) >= limit {
					return fmt.Errorf("lost's attempt ended after the limit of its run (%v after its start): the machine is too slow for this scenario", limit)
				}
				return nil
			}),
	}
	s.ordered("A defer whose attempt ended unobserved after a supervisor loss, adopted after its limit", sc, func(get func() *fw.Outcome) {
		It("fails the run: the defer is not started again, and the next one is skipped under onFailure: Abort", req(spec.DEFER007), func() {
			out := get()
			tl := out.Timeline
			starts := tl.All(fw.RuntimeEv(runtimev1.EventContainerStarted, "lost"))
			Expect(starts).To(HaveLen(1), "lost: the attempt the loss hid and no other\n%s", tl)
			Expect(tl.Instances("lost")).To(HaveLen(1), "one instance of lost ran\n%s", tl)
			// The setup: the attempt ended by itself (nobody killed it) before its limit, and
			// the pod was adopted after it.
			Expect(tl.NeverHappened("a SIGKILL to lost", runtimeSignal("lost", "SIGKILL"))).To(Succeed())
			exit, ok := tl.First(fw.ProbeEvent("lost", probe.TypeExit))
			Expect(ok).To(BeTrue(), "lost reported its exit\n%s", tl)
			limitAt := starts[0].Time.Add(limit)
			Expect(exit.Time.Before(limitAt)).To(BeTrue(), "lost exited before its limit\n%s", tl)
			adopted := noteTimeOf(out, noteAdopted)
			Expect(adopted.After(limitAt)).To(BeTrue(), "the pod was adopted (%s) after lost's limit (%s)\n%s",
				adopted.Format(time.RFC3339Nano), limitAt.Format(time.RFC3339Nano), tl)
			expectEnd(out, "lost", end{reason: reasonExitStatusLost})
			expectSkipped(out, "after", skipAborted)
			expectDeferCompleted(out, deferFailed)
		})
	})
}
