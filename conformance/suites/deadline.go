package suites

import (
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/spec"
)

func (s *suite) registerDeadline() {
	sc := &fw.Scenario{
		Short: "deadline",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Deadline(1).
			Main("app", fw.Loop()),
	}
	s.ordered("activeDeadlineSeconds", sc, func(get func() *fw.Outcome) {
		It("begins the stop sequence with reason DeadlineExceeded at startedAt + activeDeadlineSeconds", req(spec.DL002, spec.TIME001, spec.TIME002), func() {
			out := get()
			Expect(out.Final.StartedAt).NotTo(BeNil())
			Expect(out.Final.Reason).To(Equal(v1alpha1.ReasonDeadlineExceeded), "%s", out.Final)
			term, ok := out.Timeline.First(fw.RuntimeEv(runtimev1.EventPodTerminating, ""))
			Expect(ok).To(BeTrue(), "PodTerminating\n%s", out.Timeline)
			gap := term.Time.Sub(*out.Final.StartedAt)
			tol := s.f.Tolerances()
			Expect(gap).To(BeNumerically(">=", time.Second-tol.EarlyMargin.Value), "the deadline fired %v after startedAt\n%s", gap, out.Timeline)
			Expect(gap).To(BeNumerically("<=", time.Second+tol.Reaction.Value), "the deadline fired %v after startedAt\n%s", gap, out.Timeline)
		})
		It("fails the pod with exit code 1 and no deciding container", req(spec.EXIT014Reason, spec.EXIT015Empty, spec.EXIT018Failed), func() {
			st := get().Final
			Expect(st.Phase).To(Equal(v1alpha1.PodFailed), "%s", st)
			Expect(st.DecidedBy).To(BeEmpty())
			Expect(st.ExitCode).To(HaveValue(BeEquivalentTo(1)))
		})
		It("records the stopped container with reason DeadlineExceeded", req(spec.STAT006), func() {
			t := get().Final.Terminated("app")
			Expect(t).NotTo(BeNil())
			Expect(t.Reason).To(Equal(v1alpha1.ReasonDeadlineExceeded), "%s", get().Final)
		})
	})
}
