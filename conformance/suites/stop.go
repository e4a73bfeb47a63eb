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

// seqGrace is the grace period of the stop-sequence scenario: long enough that its reserve point
// (seqGrace - 2 s) comes well after the hooks end, so that the order of stop signals is the
// runtime's choice and not forced by the reserve point.
const seqGrace = 20

func (s *suite) registerStop() {
	// api depends on db; both have a preStop hook; other is independent; s1 is a sidecar. The
	// pod restart policy is Always, so any restart during the stop sequence would show.
	seq := &fw.Scenario{
		Short: "stop-seq",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyAlways).Grace(seqGrace).
			Sidecar("s1", fw.Loop()).
			Main("db", fw.Loop(), fw.PreStop(fw.HookHandler(ms(400), 0))).
			Main("api", fw.Loop(), fw.PreStop(fw.HookHandler(ms(400), 0)), fw.DependsOn("db", v1alpha1.ConditionStarted)).
			Main("other", fw.Loop()),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := fw.StopWhen("every container started", fw.AllStarted("s1", "db", "api", "other"), nil, false)(ctx, p); err != nil {
				return err
			}
			// The contract: once stop returns, the stop is recorded (Terminating=True).
			st, err := p.Status(ctx)
			if err != nil {
				return err
			}
			if c := st.Condition(v1alpha1.PodTerminating); c != nil {
				p.Note("terminating-after-stop", string(c.Status))
			}
			return nil
		},
	}
	s.ordered("The stop sequence", seq, func(get func() *fw.Outcome) {
		preStopStart := func(c string) fw.Matcher { return fw.HandlerEvent(c, "preStop", probe.TypeHandlerStart) }
		preStopEnd := func(c string) fw.Matcher { return fw.HandlerEvent(c, "preStop", probe.TypeHandlerEnd) }
		It("sets the condition Terminating to True when the stop sequence begins and to False when the pod is terminal", req(spec.STOP004TrueAtBegin, spec.STOP004FalseWhenTerminal), func() {
			Expect(get().Pod.Notes()).To(HaveKeyWithValue("terminating-after-stop", string(v1alpha1.ConditionTrue)), "Terminating right after the stop request")
			c := get().Final.Condition(v1alpha1.PodTerminating)
			Expect(c).NotTo(BeNil(), "%s", get().Final)
			Expect(c.Status).To(Equal(v1alpha1.ConditionFalse), "Terminating once the pod is terminal\n%s", get().Final)
		})
		It("records the termination reason Stopped", req(spec.EXIT020NeverChanged), func() {
			Expect(get().Final.Reason).To(Equal("Stopped"), "%s", get().Final)
		})
		It("starts the preStop hooks of all main containers without waiting for one another", req(spec.HB019), func() {
			tl := get().Timeline
			for _, a := range []string{"db", "api"} {
				for _, b := range []string{"db", "api"} {
					Expect(tl.Before(a+"'s preStop starts before "+b+"'s ends", preStopStart(a), preStopEnd(b))).To(Succeed())
				}
			}
		})
		It("sends a container its stop signal only after its preStop hook ended", req(spec.HB012), func() {
			tl := get().Timeline
			for _, c := range []string{"db", "api"} {
				Expect(tl.Before(c+"'s preStop ends before its stop signal", preStopEnd(c), probeSignal(c, "SIGTERM"))).To(Succeed())
			}
		})
		It("stops a dependent before its dependency, unless the reserve point comes first", req(spec.HB011), func() {
			tl := get().Timeline
			if sig, ok := tl.First(probeSignal("db", "SIGTERM")); ok {
				if stop, ok := tl.First(fw.RuntimeEv(runtimev1.EventStopRequested, "")); ok {
					reserve := stop.Time.Add(time.Duration(seqGrace-v1alpha1.MinimumStopWindowSeconds) * time.Second)
					if !sig.Time.Before(reserve.Add(-s.f.Tolerances().EarlyMargin.Value)) {
						AddReportEntry(spec.HB011, "db was signalled at the reserve point, which exempts the edge; "+spec.TIME003+" judges the delay")
						return
					}
				}
			}
			Expect(endedBefore(tl, "api", "db's stop signal", probeSignal("db", "SIGTERM"))).To(Succeed())
		})
		It("sends a container its stop signal at once when its preStop hook ended and its dependents exited", req(spec.TIME003), func() {
			tl := get().Timeline
			tol := s.f.Tolerances()
			Expect(tl.WithinBudget("api's preStop end to its SIGTERM", preStopEnd("api"), runtimeSignal("api", "SIGTERM"), 0, tol.Reaction)).To(Succeed())
			apiEnd, err := lastEnd(tl, "api")
			Expect(err).NotTo(HaveOccurred())
			dbReady := apiEnd
			if e, ok := tl.First(preStopEnd("db")); ok && e.Time.After(dbReady) {
				dbReady = e.Time
			}
			sig, ok := tl.First(runtimeSignal("db", "SIGTERM"))
			Expect(ok).To(BeTrue(), "db gets SIGTERM\n%s", tl)
			Expect(sig.Time.Sub(dbReady)).To(BeNumerically("<=", tol.Reaction.Value), "db's SIGTERM came %v after api exited and db's preStop ended (%s %v)\n%s", sig.Time.Sub(dbReady), tol.Reaction.Name, tol.Reaction.Value, tl)
		})
		It("does not delay the stop signal of an independent container", req(spec.HB020), func() {
			tl := get().Timeline
			Expect(tl.Before("other is signalled before api's preStop ends", probeSignal("other", "SIGTERM"), preStopEnd("api"))).To(Succeed())
		})
		It("sends each main container its stop signal exactly once", req(spec.STOP007), func() {
			tl := get().Timeline
			for _, c := range []string{"db", "api", "other"} {
				Expect(countMatches(tl, probeSignal(c, "SIGTERM"))).To(Equal(1), "%s receives SIGTERM once\n%s", c, tl)
				Expect(countMatches(tl, runtimeSignal(c, "SIGTERM"))).To(Equal(1), "the runtime sends %s SIGTERM once\n%s", c, tl)
			}
		})
		It("restarts no main container once the stop sequence began", req(spec.MAIN002, spec.STOP005), func() {
			for _, c := range []string{"db", "api", "other"} {
				Expect(get().Timeline.NotRestarted(c)).To(Succeed())
			}
		})
		It("stops the sidecar last, with its stop signal", req(spec.HB014, spec.STOP009StopSignal), func() {
			tl := get().Timeline
			for _, c := range []string{"db", "api", "other"} {
				Expect(endedBefore(tl, c, "s1's stop signal", probeSignal("s1", "SIGTERM"))).To(Succeed())
			}
		})
		It("succeeds, decided by nobody, when every container exits 0 on its stop signal", req(spec.EXIT013, spec.EXIT014NoFailure, spec.EXIT016StopRequest, spec.EXIT018Succeeded), func() {
			st := get().Final
			Expect(st.Phase).To(Equal(v1alpha1.PodSucceeded), "%s", st)
			Expect(st.DecidedBy).To(BeEmpty())
			Expect(st.ExitCode).To(HaveValue(BeEquivalentTo(0)))
		})
		It("records the containers it stopped with reason Stopped", req(spec.STAT006), func() {
			for _, c := range []string{"db", "api", "other"} {
				t := get().Final.Terminated(c)
				Expect(t).NotTo(BeNil())
				Expect(t.Reason).To(Equal(v1alpha1.ReasonStopped), "%s\n%s", c, get().Final)
			}
		})
		It("makes the pod terminal only after every process ended", req(spec.HB016, spec.EXIT019), func() {
			Expect(allEndedBeforeFinish(get().Timeline)).To(Succeed())
		})
	})

	const grace = 3
	budget := &fw.Scenario{
		Short: "stop-grace",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(grace).
			Main("stubborn", fw.Loop().On("SIGTERM", "ignore")).
			Main("polite", fw.Loop()),
		Drive: fw.StopWhen("both started", fw.AllStarted("stubborn", "polite"), nil, false),
	}
	s.ordered("The grace budget", budget, func(get func() *fw.Outcome) {
		It("kills what still runs at the budget end, counted from the stop request, and not before", req(spec.STOP003ManifestGrace, spec.STOP003FromBegin, spec.STOP010, spec.TIME001, spec.TIME002), func() {
			tl := get().Timeline
			tol := s.f.Tolerances()
			from := fw.RuntimeEv(runtimev1.EventStopRequested, "")
			to := runtimeSignal("stubborn", "SIGKILL")
			Expect(tl.AtLeast("stop request to stubborn's SIGKILL", from, to, grace*time.Second, tol.EarlyMargin)).To(Succeed())
			Expect(tl.WithinBudget("stop request to stubborn's SIGKILL", from, to, grace*time.Second, tol.Reaction)).To(Succeed())
			Expect(tl.Before("stubborn's SIGKILL before its death", to, fw.RuntimeEv(runtimev1.EventContainerExited, "stubborn"))).To(Succeed())
		})
		It("leaves at least the minimum stop window between the stop signal and SIGKILL", req(spec.STOP008), func() {
			tl := get().Timeline
			Expect(tl.AtLeast("stubborn's SIGTERM to its SIGKILL", runtimeSignal("stubborn", "SIGTERM"), runtimeSignal("stubborn", "SIGKILL"),
				time.Duration(v1alpha1.MinimumStopWindowSeconds)*time.Second, s.f.Tolerances().EarlyMargin)).To(Succeed())
		})
		It("reports the kill as a signal, never as an exit code", req(spec.STAT002SetWhenKilled, spec.STAT002NameAndNumber, spec.STAT002OnlyIfKilled, spec.STAT003,
			spec.STAT001SetWhenExited, spec.STAT001OnlyIfExited), func() {
			st := get().Final
			t := st.Terminated("stubborn")
			Expect(t).NotTo(BeNil())
			Expect(t.Signal).To(Equal(signal("SIGKILL")), "%s", st)
			Expect(t.ExitCode).To(BeNil(), "%s", st)
			p := st.Terminated("polite")
			Expect(p.ExitCode).To(HaveValue(BeEquivalentTo(0)), "%s", st)
			Expect(p.Signal).To(BeNil())
		})
		It("does not count a container the runtime stopped as a failure because it needed SIGKILL", req(spec.EXIT013, spec.EXIT014NoFailure, spec.EXIT016StopRequest, spec.EXIT018Succeeded), func() {
			st := get().Final
			Expect(st.Phase).To(Equal(v1alpha1.PodSucceeded), "%s", st)
			Expect(st.DecidedBy).To(BeEmpty(), "a pod ended by a stop request has no deciding container")
			Expect(st.ExitCode).To(HaveValue(BeEquivalentTo(0)))
		})
		It("makes the pod terminal only after every process ended, the one killed at the budget end included", req(spec.HB016), func() {
			Expect(allEndedBeforeFinish(get().Timeline)).To(Succeed())
		})
	})

	hung := &fw.Scenario{
		Short: "stop-hung-prestop",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(4).
			Main("app", fw.Loop(), fw.PreStop(fw.HookHandler(time.Minute, 0))),
		Drive: fw.StopWhen("app started", fw.AllStarted("app"), nil, false),
	}
	s.ordered("A preStop hook that does not end", hung, func(get func() *fw.Outcome) {
		It("does not keep the runtime from sending the stop signal at the reserve point", req(spec.HOOK012, spec.STOP006), func() {
			tl := get().Timeline
			tol := s.f.Tolerances()
			reserve := time.Duration(4-v1alpha1.MinimumStopWindowSeconds) * time.Second
			Expect(tl.AtLeast("stop request to app's SIGTERM", fw.RuntimeEv(runtimev1.EventStopRequested, ""), probeSignal("app", "SIGTERM"), reserve, tol.EarlyMargin)).To(Succeed())
			Expect(tl.WithinBudget("stop request to app's SIGTERM", fw.RuntimeEv(runtimev1.EventStopRequested, ""), probeSignal("app", "SIGTERM"), reserve, tol.Reaction)).To(Succeed())
			t := get().Final.Terminated("app")
			Expect(t.ExitCode).To(HaveValue(BeEquivalentTo(0)), "app exits 0 on its SIGTERM\n%s", get().Final)
		})
	})
}
