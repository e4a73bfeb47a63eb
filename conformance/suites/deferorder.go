package suites

import (
	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/spec"
)

// registerDeferOrder declares the specs of where defer containers sit in the stop sequence:
// AfterStop defers after the main containers, and no defer at all in a forced stop. They catch
// the mutants after_stop_defers_early and defer_on_forced_stop (docs/mutants.md).
func (s *suite) registerDeferOrder() {
	// app takes 3 s to exit after its stop signal, so an AfterStop defer started together with
	// the main containers' stop would run while app still runs, even when creating the defer's
	// container is slow. The grace period leaves the defer ample time to start on a loaded
	// machine; the sequence ends when the defer has run.
	after := &fw.Scenario{
		Short:   "defer-after",
		Profile: spec.ProfileDefer,
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(30).
			Main("app", fw.Loop().On("SIGTERM", "exit:3s:0")).
			Defer("cleanup", fw.ExitAfter(0, ms(200)), fw.DeferPhase(v1alpha1.DeferAfterStop)),
		Drive: fw.StopWhen("app started", fw.AllStarted("app"), nil, false),
	}
	s.ordered("An AfterStop defer container", after, func(get func() *fw.Outcome) {
		It("runs in a graceful stop sequence", req(spec.DEFER002), func() {
			Expect(get().Timeline.NotRestarted("cleanup")).To(Succeed())
			t := get().Final.Terminated("cleanup")
			Expect(t).NotTo(BeNil(), "cleanup ran to its end\n%s", get().Final)
			Expect(t.ExitCode).To(HaveValue(BeEquivalentTo(0)), "%s", get().Final)
		})
		It("starts only after every main container has exited", req(spec.HB013), func() {
			Expect(get().Timeline.ExitsBeforeStart("app", "cleanup")).To(Succeed())
		})
	})

	forced := &fw.Scenario{
		Short:   "defer-forced",
		Profile: spec.ProfileDefer,
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(30).
			Main("app", fw.Loop()).
			Defer("before", fw.ExitAfter(0, ms(200)), fw.DeferPhase(v1alpha1.DeferBeforeStop)).
			Defer("after", fw.ExitAfter(0, ms(200)), fw.DeferPhase(v1alpha1.DeferAfterStop)),
		Drive: fw.StopWhen("app started", fw.AllStarted("app"), nil, true),
	}
	s.ordered("Defer containers in a forced stop", forced, func(get func() *fw.Outcome) {
		It("are never started", req(spec.FORCE003), func() {
			for _, d := range []string{"before", "after"} {
				Expect(get().Timeline.NeverStarted(d)).To(Succeed())
			}
		})
		It("are recorded as skipped with reason Forced", req(spec.FORCE004), func() {
			st := get().Final
			for _, d := range []string{"before", "after"} {
				c := st.Container(d)
				Expect(c).NotTo(BeNil(), "status of %s\n%s", d, st)
				Expect(c.State.Skipped).NotTo(BeNil(), "%s is skipped\n%s", d, st)
				Expect(c.State.Skipped.Reason).To(Equal(v1alpha1.ReasonForced), "%s\n%s", d, st)
			}
		})
		It("set DeferCompleted to False with reason DeferSkipped: no run failed, some were skipped", req(spec.DEFER012Skipped), func() {
			expectDeferCompleted(get(), deferSkipped)
		})
	})
}
