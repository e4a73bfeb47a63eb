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

func (s *suite) registerProbes() {
	never := fw.WithRestartPolicy(v1alpha1.RestartPolicyNever)
	sc := &fw.Scenario{
		Short: "probes",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(5).
			Main("slow", fw.Loop(),
				fw.PostStart(fw.HookHandler(ms(300), 0)),
				fw.Startup(fw.CheckMarker("slow-started"), fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 60}),
				fw.Readiness(fw.CheckExit(0), fw.ProbeTiming{PeriodSeconds: 1})).
			Main("unstartable", fw.Loop(), never, fw.PreStop(fw.HookHandler(0, 0)),
				fw.Startup(fw.CheckExit(1), fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 2})).
			Main("unhealthy", fw.Loop(), never, fw.PreStop(fw.HookHandler(0, 0)),
				fw.Liveness(fw.CheckMarker("never"), fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 2})).
			Main("badhook", fw.Loop(), never, fw.PreStop(fw.HookHandler(0, 0)), fw.PostStart(fw.HookHandler(0, 1))).
			Main("sleeper", fw.Loop(), fw.PreStopSleep(1)).
			Main("slowcheck", fw.Loop(), never,
				fw.Liveness(fw.CheckSlow(3*time.Second, 0), fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 1, TimeoutSeconds: 1})),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if _, err := p.WaitFor(ctx, "slow's postStart hook to end", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ok := tl.First(fw.HandlerEvent("slow", "postStart", probe.TypeHandlerEnd))
				return ok
			}); err != nil {
				return err
			}
			time.Sleep(time.Second) // a few failing startup attempts
			if st, err := p.Status(ctx); err == nil {
				if c := st.Container("slow"); c != nil {
					p.Note("slow-started-before-startup-probe", boolString(c.Started))
				}
			}
			if err := p.Touch("slow-started"); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "the failing containers to end and slow to be ready", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ready := tl.First(fw.RuntimeEv(runtimev1.EventContainerReady, "slow"))
				// The runtime's ContainerExited, not the probe's own exit report: a pod stop that
				// reached an instance still being killed for a failed probe would make its reason
				// Stopped (STAT-006's table puts Stopped before Unhealthy), which the specs below
				// do not test.
				return ready && runtimeExited("unstartable", "unhealthy", "badhook")(tl)
			}); err != nil {
				return err
			}
			// slowcheck's first attempt times out 1 s after it began, long before the others end.
			// A runtime that never fails that attempt never ends slowcheck: stop the pod anyway
			// (a bounded wait, not the pod timeout), so that the HOOK-005 spec, not the scenario,
			// reports it.
			if _, err := p.WaitFor(ctx, "slowcheck's exit", p.PodTimeout()/4, runtimeExited("slowcheck")); err != nil && ctx.Err() != nil {
				return err
			}
			if st, err := p.Status(ctx); err == nil {
				if c := st.Container("slow"); c != nil {
					p.Note("slow-started-after-startup-probe", boolString(c.Started))
				}
			}
			return p.Stop(ctx, nil, false)
		},
	}
	// patient outlives its probe's first timed-out attempt by seconds: a check left running
	// past its timeoutSeconds would complete, and report, while patient still runs.
	slowAttempt := &fw.Scenario{
		Short: "probe-timeout",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Main("patient", fw.Loop(),
				fw.Liveness(fw.CheckSlow(2*time.Second, 0), fw.ProbeTiming{PeriodSeconds: 3, FailureThreshold: 2, TimeoutSeconds: 1})),
	}
	s.ordered("A probe attempt that outlives its timeout", slowAttempt, func(get func() *fw.Outcome) {
		It("is killed at timeoutSeconds while its container runs on", req(spec.HOOK006), func() {
			out := get()
			t := out.Final.Terminated("patient")
			Expect(t).NotTo(BeNil(), "%s", out.Final)
			Expect(t.Reason).To(Equal("Unhealthy"), "two attempts that outlive the 1 s timeout fail a failureThreshold of 2\n%s", out.Final)
			Expect(out.Timeline.NeverHappened("a timed-out check of patient completing", fw.ProbeEvent("patient", probe.TypeCheck))).To(Succeed())
		})
	})
	s.ordered("Probes and hooks", sc, func(get func() *fw.Outcome) {
		check := func(container, kind string) fw.Matcher {
			return func(e fw.Entry) bool {
				return fw.ProbeEvent(container, probe.TypeCheck)(e) && e.Probe.Handler == kind
			}
		}
		success := func(container, kind string) fw.Matcher {
			return func(e fw.Entry) bool { return check(container, kind)(e) && e.Probe.Result == "success" }
		}
		It("runs the startup probe only after postStart succeeded", req(spec.HB006), func() {
			Expect(get().Timeline.Before("slow's postStart ends before its first startup check", fw.HandlerEvent("slow", "postStart", probe.TypeHandlerEnd), check("slow", "startup"))).To(Succeed())
		})
		It("runs readiness checks only once the startup probe passed", req(spec.HB007), func() {
			Expect(get().Timeline.Before("slow's startup passes before its first readiness check", success("slow", "startup"), check("slow", "readiness"))).To(Succeed())
		})
		It("reports started only once postStart succeeded and the startup probe passed", req(spec.DEP007), func() {
			notes := get().Pod.Notes()
			Expect(notes).To(HaveKeyWithValue("slow-started-before-startup-probe", "false"))
			Expect(notes).To(HaveKeyWithValue("slow-started-after-startup-probe", "true"))
		})
		It("counts a probe attempt as a success exactly when its command exits 0", req(spec.HOOK005), func() {
			tl := get().Timeline
			Expect(tl.Before("slow is Ready only after a successful readiness check", success("slow", "readiness"), fw.RuntimeEv(runtimev1.EventContainerReady, "slow"))).To(Succeed())
			Expect(tl.Before("slow's startup passes only after the marker made the check succeed", success("slow", "startup"), fw.RuntimeEv(runtimev1.EventContainerReady, "slow"))).To(Succeed())
		})
		It("counts an attempt that outlives timeoutSeconds as a failure and kills it", req(spec.HOOK005, spec.HOOK006), func() {
			out := get()
			t := out.Final.Terminated("slowcheck")
			Expect(t).NotTo(BeNil(), "%s", out.Final)
			Expect(t.Reason).To(Equal("Unhealthy"), "a check that would exit 0 after 3 s fails a 1 s timeout\n%s", out.Final)
			Expect(out.Timeline.NeverHappened("slowcheck's check completing", fw.ProbeEvent("slowcheck", probe.TypeCheck))).To(Succeed())
		})
		It("kills an instance whose postStart hook fails and records StartError as a failure", req(spec.HOOK008), func() {
			out := get()
			t := out.Final.Terminated("badhook")
			Expect(t).NotTo(BeNil(), "%s", out.Final)
			Expect(t.Reason).To(Equal(v1alpha1.ReasonStartError), "%s", out.Final)
			Expect(out.Final.Phase).To(Equal(v1alpha1.PodFailed), "a StartError is a failure\n%s", out.Final)
		})
		It("kills an instance whose startup probe keeps failing and records Unhealthy", req(spec.HOOK009Threshold, spec.HOOK009Unhealthy), func() {
			out := get()
			t := out.Final.Terminated("unstartable")
			Expect(t).NotTo(BeNil(), "%s", out.Final)
			Expect(t.Reason).To(Equal("Unhealthy"), "%s", out.Final)
			Expect(countMatches(out.Timeline, check("unstartable", "startup"))).To(BeNumerically(">=", 2), "failureThreshold 2 attempts\n%s", out.Timeline)
		})
		It("stops an instance whose liveness probe keeps failing with its stop signal and records Unhealthy", req(spec.HOOK010StopSignal, spec.HOOK010Unhealthy), func() {
			out := get()
			Expect(out.Timeline.Happened("unhealthy receives SIGTERM", probeSignal("unhealthy", "SIGTERM"))).To(Succeed())
			t := out.Final.Terminated("unhealthy")
			Expect(t).NotTo(BeNil(), "%s", out.Final)
			Expect(t.Reason).To(Equal("Unhealthy"), "%s", out.Final)
		})
		It("runs preStop hooks only in the stop sequence, never after a probe or postStart failure", req(spec.HOOK011), func() {
			tl := get().Timeline
			for _, c := range []string{"unstartable", "unhealthy", "badhook"} {
				Expect(tl.NeverHappened(c+"'s preStop hook", fw.HandlerEvent(c, "preStop", probe.TypeHandlerStart))).To(Succeed())
			}
		})
		It("runs a sleep hook by waiting its seconds before the stop signal", req(spec.HOOK004, spec.HB012), func() {
			tl := get().Timeline
			Expect(tl.AtLeast("stop request to sleeper's SIGTERM", fw.RuntimeEv(runtimev1.EventStopRequested, ""), probeSignal("sleeper", "SIGTERM"), time.Second, s.f.Tolerances().EarlyMargin)).To(Succeed())
		})
	})
}

// registerReadinessLoss: a Ready container whose readiness check starts failing at a set moment
// (failureThreshold 2) becomes not Ready at its second failed check, not at the first or the third
// (HOOK-013). The checks' own reports are the ground truth the runtime's ProbeFailed is placed
// against; a status read after the first failure and one after ProbeFailed see ready itself.
func (s *suite) registerReadinessLoss() {
	const period = 2 // seconds: a status read after the first failure is well before the second
	failed := func(e fw.Entry) bool {
		return fw.ProbeEvent("flaky", probe.TypeCheck)(e) && e.Probe.Handler == "readiness" && e.Probe.Result == "failure"
	}
	notReady := func(e fw.Entry) bool {
		return fw.RuntimeEv(runtimev1.EventProbeFailed, "flaky")(e) && e.Runtime.Probe == "readiness"
	}
	// failuresAfterReady returns flaky's failed readiness checks after its first ContainerReady.
	failuresAfterReady := func(tl *fw.Timeline) []fw.Entry {
		ready, ok := tl.First(fw.RuntimeEv(runtimev1.EventContainerReady, "flaky"))
		if !ok {
			return nil
		}
		var out []fw.Entry
		for _, e := range tl.All(failed) {
			if ready.Time.Before(e.Time) {
				out = append(out, e)
			}
		}
		return out
	}
	sc := &fw.Scenario{
		Short: "readiness-loss",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Main("flaky", fw.Loop(), fw.Readiness(fw.CheckMarker("flaky-up"), fw.ProbeTiming{PeriodSeconds: period, FailureThreshold: 2})),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := p.Touch("flaky-up"); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "flaky to be Ready", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ok := tl.First(fw.RuntimeEv(runtimev1.EventContainerReady, "flaky"))
				return ok
			}); err != nil {
				return err
			}
			if err := p.Remove("flaky-up"); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "flaky's first failed readiness check", p.PodTimeout(), func(tl *fw.Timeline) bool {
				return len(failuresAfterReady(tl)) >= 1
			}); err != nil {
				return err
			}
			if st, err := p.Status(ctx); err == nil {
				if c := st.Container("flaky"); c != nil {
					p.Note("flaky-ready-after-first-failure", boolString(c.Ready))
				}
			}
			if _, err := p.WaitFor(ctx, "flaky's readiness ProbeFailed and its third failed check", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ok := tl.First(notReady)
				return ok && len(failuresAfterReady(tl)) >= 3
			}); err != nil {
				return err
			}
			if st, err := p.Status(ctx); err == nil {
				if c := st.Container("flaky"); c != nil {
					p.Note("flaky-ready-after-probe-failed", boolString(c.Ready))
				}
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("A readiness probe that starts failing", sc, func(get func() *fw.Outcome) {
		It("makes its Ready container not Ready at the failureThreshold-th consecutive failure, not before or after", req(spec.HOOK013AtThreshold, spec.HOOK013NotBefore), func() {
			out := get()
			fails := failuresAfterReady(out.Timeline)
			Expect(len(fails)).To(BeNumerically(">=", 3), "three failed readiness checks after Ready\n%s", out.Timeline)
			pf, ok := out.Timeline.First(notReady)
			Expect(ok).To(BeTrue(), "a readiness ProbeFailed for flaky\n%s", out.Timeline)
			Expect(fails[1].Time.Before(pf.Time)).To(BeTrue(), "not Ready at the 2nd failed readiness check, not before it: ProbeFailed must follow the 2nd failure (failureThreshold 2)\n%s", out.Timeline)
			Expect(pf.Time.Before(fails[2].Time)).To(BeTrue(), "not Ready at the 2nd failed readiness check, not at the 3rd: ProbeFailed must precede the 3rd failure (failureThreshold 2)\n%s", out.Timeline)
			notes := out.Pod.Notes()
			Expect(notes).To(HaveKeyWithValue("flaky-ready-after-first-failure", "true"), "still Ready after one failure of failureThreshold 2")
			Expect(notes).To(HaveKeyWithValue("flaky-ready-after-probe-failed", "false"), "not Ready once the readiness probe reached failureThreshold")
		})
	})
}

// registerLivenessThreshold: a liveness probe that never succeeds (failureThreshold 2) has its
// container stopped at its second failed check, not at the third (HOOK-010). The checks' own
// reports are the ground truth the runtime's stop signal is placed against. restartPolicy Never:
// the pod ends with the container, so the scenario needs no Drive.
func (s *suite) registerLivenessThreshold() {
	failed := func(e fw.Entry) bool {
		return fw.ProbeEvent("doomed", probe.TypeCheck)(e) && e.Probe.Handler == "liveness" && e.Probe.Result == "failure"
	}
	sc := &fw.Scenario{
		Short: "liveness-threshold",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Main("doomed", fw.Loop(), fw.Liveness(fw.CheckMarker("never-created"), fw.ProbeTiming{PeriodSeconds: 2, FailureThreshold: 2})),
	}
	s.ordered("A liveness probe that never succeeds", sc, func(get func() *fw.Outcome) {
		It("stops its container at the failureThreshold-th consecutive failure, not after", req(spec.HOOK010Threshold, spec.HOOK010StopSignal, spec.HOOK010Unhealthy), func() {
			out := get()
			tl := out.Timeline
			kill, ok := tl.First(runtimeSignal("doomed", "SIGTERM"))
			Expect(ok).To(BeTrue(), "the runtime's SIGTERM to doomed\n%s", tl)
			var before []fw.Entry
			for _, e := range tl.All(failed) {
				if e.Time.Before(kill.Time) {
					before = append(before, e)
				}
			}
			Expect(before).To(HaveLen(2), "failed liveness checks before the runtime's stop signal: failureThreshold 2, so the 2nd failure stops the container and a 3rd never comes first\n%s", tl)
			t := out.Final.Terminated("doomed")
			Expect(t).NotTo(BeNil(), "%s", out.Final)
			Expect(t.Reason).To(Equal("Unhealthy"), "%s", out.Final)
		})
	})
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
