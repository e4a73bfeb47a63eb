package suites

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// waitThenStop waits for cond, lets drive observe the pod, then requests a stop.
func waitThenStop(what string, cond func(*fw.Timeline) bool, observe func(context.Context, *fw.Pod), grace *int64) func(context.Context, *fw.Pod) error {
	return func(ctx context.Context, p *fw.Pod) error {
		if _, err := p.WaitFor(ctx, what, p.PodTimeout(), cond); err != nil {
			return err
		}
		if observe != nil {
			observe(ctx, p)
		}
		return p.Stop(ctx, grace, false)
	}
}

func (s *suite) registerTiming() {
	// Phases: Pending while the init container runs, Running once a main container started.
	// The init container exits only once the harness has read the status, so that status is
	// read while it runs however slowly the runtime answers (a fixed 1.5 s let a runtime whose
	// status takes longer than that answer after the main container started). app ignores its
	// SIGTERM, so the pod stays terminating after the stop request until the harness, having
	// read the status while app still runs (it reported its SIGTERM), forces the stop: that
	// status must not hold the result or finishedAt yet (EXIT-019, EXIT-011), and must hold the
	// termination reason already (EXIT-020).
	phases := &fw.Scenario{
		Short: "phases",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Init("i1", fw.ExitAfter(0, 0).WaitFor("i1-go")).
			Main("app", fw.Loop().On("SIGTERM", "ignore")),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if _, err := p.WaitFor(ctx, "i1 to start", p.PodTimeout(), fw.AllStarted("i1")); err != nil {
				return err
			}
			if st, err := p.Status(ctx); err == nil {
				p.Note("phase-during-init", string(st.Phase))
				p.Note("exitcode-set-early", boolString(st.ExitCode != nil || st.DecidedBy != ""))
			}
			if err := p.Touch("i1-go"); err != nil {
				return err
			}
			// Running is set with the runtime's record of the start, which may follow the
			// workload's own report.
			err := waitThenStop("app's start to be recorded", fw.StartRecorded("app"), func(ctx context.Context, p *fw.Pod) {
				if st, err := p.Status(ctx); err == nil {
					p.Note("phase-running", string(st.Phase))
				}
			}, nil)(ctx, p)
			if err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "app to receive its SIGTERM", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ok := tl.First(probeSignal("app", "SIGTERM"))
				return ok
			}); err != nil {
				return err
			}
			if st, err := p.Status(ctx); err == nil {
				p.Note("exitcode-set-terminating", boolString(st.ExitCode != nil || st.DecidedBy != ""))
				p.Note("finishedat-set-terminating", boolString(st.FinishedAt != nil))
				p.Note("reason-terminating", st.Reason)
			}
			return p.Stop(ctx, nil, true)
		},
	}
	s.ordered("Pod phases", phases, func(get func() *fw.Outcome) {
		It("reports Pending until the first main container starts, then Running", req(spec.EXIT009Pending, spec.EXIT009Running), func() {
			notes := get().Pod.Notes()
			Expect(notes).To(HaveKeyWithValue("phase-during-init", string(v1alpha1.PodPending)))
			Expect(notes).To(HaveKeyWithValue("phase-running", string(v1alpha1.PodRunning)))
		})
		It("sets startedAt when the first container instance (the init container) starts, and finishedAt only once the pod is terminal", req(spec.DL001, spec.EXIT011WhenTerminal, spec.EXIT011OnlyThen), func() {
			out := get()
			st, tl := out.Final, out.Timeline
			Expect(st.StartedAt).NotTo(BeNil(), "status.startedAt")
			Expect(st.FinishedAt).NotTo(BeNil(), "status.finishedAt")
			i1 := st.Terminated("i1")
			Expect(i1).NotTo(BeNil(), "i1's termination")
			Expect(st.StartedAt.After(i1.FinishedAt)).To(BeFalse(), "startedAt %s is after the init container i1 ended (%s): it must be the start of the pod's first container instance", st.StartedAt, i1.FinishedAt)
			if in := tl.Instances("i1"); len(in) > 0 && !in[0].End.IsZero() {
				Expect(st.StartedAt.Before(in[0].End)).To(BeTrue(), "startedAt %s is not before i1's workload reported its exit (%s)\n%s", st.StartedAt, in[0].End, tl)
			}
			sig, ok := tl.First(probeSignal("app", "SIGTERM"))
			Expect(ok).To(BeTrue(), "app received its SIGTERM\n%s", tl)
			Expect(st.FinishedAt.Before(sig.Time)).To(BeFalse(), "finishedAt %s is before app reported its SIGTERM (%s), while the pod was still terminating\n%s", st.FinishedAt, sig.Time, tl)
			Expect(out.Pod.Notes()).To(HaveKeyWithValue("finishedat-set-terminating", "false"), "finishedAt set while the pod was terminating")
		})
		It("sets status.reason to the termination reason when the stop sequence begins, before the pod is terminal", req(spec.EXIT020SetAtStop), func() {
			Expect(get().Pod.Notes()).To(HaveKeyWithValue("reason-terminating", "Stopped"),
				"status.reason while the pod was terminating (app had ignored its SIGTERM): a stop request's termination reason")
		})
		It("sets neither exitCode nor decidedBy before the pod is terminal", req(spec.EXIT019ExitCode, spec.EXIT019DecidedBy), func() {
			notes := get().Pod.Notes()
			Expect(notes).To(HaveKeyWithValue("exitcode-set-early", "false"), "while the init container ran")
			Expect(notes).To(HaveKeyWithValue("exitcode-set-terminating", "false"), "while the pod was terminating (app had ignored its SIGTERM)")
		})
	})

	// A restart pending behind a long back-off: waiting BackOff; then a stop cancels it.
	backoff := &fw.Scenario{
		Short: "backoff-wait",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure).Backoff(30, 1, 30, 600).
			Main("a", fw.ExitAfter(0, ms(100)).Codes("3", "0")).
			Main("keep", fw.Loop()),
		// keep's workload must have started before the stop: the run's consistency check holds
		// every ContainerStarted to a workload start, and a sandboxed runtime (runsc) can take
		// longer to run keep's program than a takes to exit.
		Drive: waitThenStop("a's first exit and keep's workload start", func(tl *fw.Timeline) bool {
			_, exited := tl.First(fw.RuntimeEv(runtimev1.EventContainerExited, "a"))
			_, kept := tl.First(fw.ProbeEvent("keep", probe.TypeStart))
			return exited && kept
		}, func(ctx context.Context, p *fw.Pod) {
			time.Sleep(200 * time.Millisecond)
			if st, err := p.Status(ctx); err == nil {
				if c := st.Container("a"); c != nil && c.State.Waiting != nil {
					p.Note("a-waiting-reason", c.State.Waiting.Reason)
				}
			}
		}, nil),
	}
	s.ordered("A restart waiting for its back-off", backoff, func(get func() *fw.Outcome) {
		It("reports the container waiting with reason BackOff", req(spec.RST010), func() {
			Expect(get().Pod.Notes()).To(HaveKeyWithValue("a-waiting-reason", "BackOff"))
		})
		It("cancels the pending restart when the stop sequence begins, and shows the last termination again", req(spec.STOP005Cancel, spec.STOP005LastTermination, spec.MAIN002), func() {
			out := get()
			Expect(out.Timeline.NotRestarted("a")).To(Succeed())
			t := out.Final.Terminated("a")
			Expect(t).NotTo(BeNil(), "a's state is its last termination\n%s", out.Final)
			Expect(t.ExitCode).To(HaveValue(BeEquivalentTo(3)))
		})
	})

	// a fails (exit 3, restart policy OnFailure, a short back-off) in the middle of the stop
	// sequence: after its stop signal, which it ignores, while keep lingers 4 s after its own.
	// The harness triggers the exit on a's signal, so it falls into the sequence on any
	// machine. A runtime that still restarts main containers once the sequence has begun
	// starts a again while keep lingers.
	inStop := &fw.Scenario{
		Short: "fail-in-stop",
		Pod: fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure)).
			Main("a", fw.ExitAfter(3, 0).WaitFor("a-go").On("SIGTERM", "ignore")).
			Main("keep", fw.Loop().On("SIGTERM", "exit:4s:0")),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := fw.StopWhen("a and keep to start", fw.AllStarted("a", "keep"), nil, false)(ctx, p); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "a's stop signal", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ok := tl.First(probeSignal("a", "SIGTERM"))
				return ok
			}); err != nil {
				return err
			}
			return p.Touch("a-go")
		},
	}
	s.ordered("A main container that fails during the stop sequence", inStop, func(get func() *fw.Outcome) {
		It("is not restarted, whatever its restart policy", req(spec.MAIN002), func() {
			out := get()
			Expect(out.Timeline.NotRestarted("a")).To(Succeed())
			t := out.Final.Terminated("a")
			Expect(t).NotTo(BeNil(), "a's state is its last termination\n%s", out.Final)
			Expect(t.ExitCode).To(HaveValue(BeEquivalentTo(3)))
		})
	})

	// Two stop requests: a later, longer grace period does not move the budget end.
	const firstGrace = 5
	later := &fw.Scenario{
		Short: "stop-twice-longer",
		Pod:   fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("stubborn", fw.Loop().On("SIGTERM", "ignore")),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := fw.StopWhen("stubborn to start", fw.AllStarted("stubborn"), i64(firstGrace), false)(ctx, p); err != nil {
				return err
			}
			time.Sleep(time.Second)
			return p.Stop(ctx, i64(60), false)
		},
	}
	s.ordered("A second stop request with a longer grace period", later, func(get func() *fw.Outcome) {
		It("does not move the budget end later", req(spec.STOP011, spec.STOP003RequestGrace, spec.STOP003FromBegin), func() {
			tl := get().Timeline
			Expect(tl.All(fw.RuntimeEv(runtimev1.EventStopRequested, ""))).To(HaveLen(2), "%s", tl)
			Expect(tl.WithinBudget("first stop request to SIGKILL", fw.RuntimeEv(runtimev1.EventStopRequested, ""), runtimeSignal("stubborn", "SIGKILL"), firstGrace*time.Second, s.f.Tolerances().Reaction)).To(Succeed())
		})
	})
	earlier := &fw.Scenario{
		Short: "stop-twice-shorter",
		Pod:   fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("stubborn", fw.Loop().On("SIGTERM", "ignore")),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := fw.StopWhen("stubborn to start", fw.AllStarted("stubborn"), i64(60), false)(ctx, p); err != nil {
				return err
			}
			time.Sleep(time.Second)
			return p.Stop(ctx, i64(3), false)
		},
	}
	s.ordered("A second stop request with a shorter grace period", earlier, func(get func() *fw.Outcome) {
		It("moves the budget end to the end of the shorter grace period", req(spec.STOP012BudgetEnd, spec.TIME001, spec.TIME002), func() {
			tl := get().Timeline
			reqs := tl.All(fw.RuntimeEv(runtimev1.EventStopRequested, ""))
			Expect(reqs).To(HaveLen(2), "%s", tl)
			second := func(e fw.Entry) bool { return e.Runtime != nil && e.Runtime.Seq == reqs[1].Runtime.Seq }
			tol := s.f.Tolerances()
			Expect(tl.AtLeast("second stop request to SIGKILL", second, runtimeSignal("stubborn", "SIGKILL"), 3*time.Second, tol.EarlyMargin)).To(Succeed())
			Expect(tl.WithinBudget("second stop request to SIGKILL", second, runtimeSignal("stubborn", "SIGKILL"), 3*time.Second, tol.Reaction)).To(Succeed())
		})
	})

	// The deadline passes while a stop sequence runs.
	deadline := &fw.Scenario{
		Short: "deadline-during-stop",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Deadline(3).
			Main("stubborn", fw.Loop().On("SIGTERM", "ignore")),
		Drive: fw.StopWhen("stubborn to start", fw.AllStarted("stubborn"), i64(6), false),
	}
	s.ordered("A deadline passing during the stop sequence", deadline, func(get func() *fw.Outcome) {
		It("changes neither the termination reason nor the budget end", req(spec.DL003), func() {
			out := get()
			Expect(out.Final.Reason).To(Equal("Stopped"), "%s", out.Final)
			tol := s.f.Tolerances()
			Expect(out.Timeline.AtLeast("stop request to SIGKILL", fw.RuntimeEv(runtimev1.EventStopRequested, ""), runtimeSignal("stubborn", "SIGKILL"), 6*time.Second, tol.EarlyMargin)).To(Succeed())
		})
	})
}
