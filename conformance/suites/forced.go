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

// forcedPod has a container with a long preStop hook and one that ignores SIGTERM; a graceful
// stop would take long, a forced one must not.
func forcedPod() *fw.PodBuilder {
	return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyAlways).Grace(30).
		Main("app", fw.Loop(), fw.PreStop(fw.HookHandler(20*time.Second, 0))).
		Main("stubborn", fw.Loop().On("SIGTERM", "ignore"))
}

func (s *suite) registerForcedStop() {
	expectForced := func(get func() *fw.Outcome) {
		out := get()
		tl, st := out.Timeline, out.Final
		tol := s.f.Tolerances()
		for _, c := range []string{"app", "stubborn"} {
			Expect(tl.WithinBudget("forced stop to "+c+"'s SIGKILL", fw.RuntimeEv(runtimev1.EventStopRequested, ""), runtimeSignal(c, "SIGKILL"), 0, tol.Reaction)).To(Succeed())
			t := st.Terminated(c)
			Expect(t).NotTo(BeNil(), "%s\n%s", c, st)
			Expect(t.Signal).To(Equal(signal("SIGKILL")), "%s is killed by SIGKILL\n%s", c, st)
			Expect(t.ExitCode).To(BeNil())
		}
	}
	force := &fw.Scenario{
		Short: "force",
		Pod:   forcedPod(),
		Drive: fw.StopWhen("both started", fw.AllStarted("app", "stubborn"), nil, true),
	}
	s.ordered("A forced stop (--force)", force, func(get func() *fw.Outcome) {
		It("kills every process at once with SIGKILL", req(spec.FORCE001, spec.FORCE002, spec.TIME003), func() { expectForced(get) })
		It("starts no preStop hook", req(spec.FORCE003, spec.HOOK011), func() {
			Expect(get().Timeline.NeverHappened("a preStop hook", fw.HandlerEvent("app", "preStop", probe.TypeHandlerStart))).To(Succeed())
		})
		It("ends the pod with termination reason Forced: Failed, exit code 1, the instances with reason Forced", req(spec.FORCE006, spec.STAT006, spec.EXIT014Reason, spec.EXIT015Empty, spec.EXIT018Failed), func() {
			st := get().Final
			Expect(st.Reason).To(Equal(v1alpha1.ReasonForced), "%s", st)
			Expect(st.Phase).To(Equal(v1alpha1.PodFailed), "%s", st)
			Expect(st.DecidedBy).To(BeEmpty(), "%s", st)
			Expect(st.ExitCode).To(HaveValue(BeEquivalentTo(1)), "%s", st)
			for _, c := range []string{"app", "stubborn"} {
				Expect(st.Terminated(c).Reason).To(Equal(v1alpha1.ReasonForced), "%s\n%s", c, st)
			}
		})
		It("restarts nothing after the forced stop", req(spec.MAIN002), func() {
			for _, c := range []string{"app", "stubborn"} {
				Expect(get().Timeline.NotRestarted(c)).To(Succeed())
			}
		})
	})

	grace0 := &fw.Scenario{
		Short: "force-grace0",
		Pod:   forcedPod(),
		Drive: fw.StopWhen("both started", fw.AllStarted("app", "stubborn"), i64(0), false),
	}
	s.ordered("A stop with grace period 0", grace0, func(get func() *fw.Outcome) {
		It("is a forced stop", req(spec.FORCE001), func() {
			expectForced(get)
			Expect(get().Final.Reason).To(Equal(v1alpha1.ReasonForced), "%s", get().Final)
			Expect(get().Timeline.NeverHappened("a preStop hook", fw.HandlerEvent("app", "preStop", probe.TypeHandlerStart))).To(Succeed())
		})
	})

	during := &fw.Scenario{
		Short: "force-during",
		Pod:   forcedPod(),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := fw.StopWhen("both started", fw.AllStarted("app", "stubborn"), nil, false)(ctx, p); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "app's preStop hook to start", 30*time.Second, func(tl *fw.Timeline) bool {
				_, ok := tl.First(fw.HandlerEvent("app", "preStop", probe.TypeHandlerStart))
				return ok
			}); err != nil {
				return err
			}
			return p.Stop(ctx, nil, true)
		},
	}
	s.ordered("A forced stop during a graceful stop sequence", during, func(get func() *fw.Outcome) {
		It("takes effect at once, cutting the running preStop hook short", req(spec.FORCE005, spec.FORCE002), func() {
			tl := get().Timeline
			reqs := tl.All(fw.RuntimeEv(runtimev1.EventStopRequested, ""))
			Expect(reqs).To(HaveLen(2), "a graceful then a forced stop request\n%s", tl)
			kill, ok := tl.First(runtimeSignal("app", "SIGKILL"))
			Expect(ok).To(BeTrue(), "app gets SIGKILL\n%s", tl)
			Expect(kill.Time.Sub(reqs[1].Time)).To(BeNumerically("<=", s.f.Tolerances().Reaction.Value), "forced stop request to app's SIGKILL, within %s\n%s", s.f.Tolerances().Reaction.Name, tl)
			Expect(tl.NeverHappened("app's preStop hook ending", fw.HandlerEvent("app", "preStop", probe.TypeHandlerEnd))).To(Succeed())
		})
		It("keeps the termination reason of the stop sequence already running", req(spec.EXIT020NeverChanged), func() {
			Expect(get().Final.Reason).To(Equal("Stopped"), "%s", get().Final)
		})
	})
}
