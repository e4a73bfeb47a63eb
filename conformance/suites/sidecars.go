package suites

import (
	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
)

func (s *suite) registerSidecars() {
	// Two sidecars under pod restart policy Never: s2 exits 0 once and must be restarted anyway;
	// s1 exits 1 on its stop signal, which must not count for the pod result.
	sc := &fw.Scenario{
		Short: "sidecars",
		Pod: fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever)).
			Sidecar("s1", fw.Loop().On("SIGTERM", "exit:0s:1")).
			Sidecar("s2", fw.ExitAfter(0, ms(200)).Codes("0", "loop")).
			Main("app", fw.ExitAfter(0, ms(4000))),
	}
	s.ordered("Sidecars", sc, func(get func() *fw.Outcome) {
		It("restarts a sidecar after every exit, whatever the pod's restart policy", req("SIDE-001"), func() {
			Expect(get().Timeline.Restarted("s2", 1)).To(Succeed())
		})
		It("does not count a sidecar's exit for the exit policy or the pod result", req("SIDE-002"), func() {
			st := get().Final
			Expect(st.Phase).To(Equal(v1alpha1.PodSucceeded), "s1 exits 1 on its stop signal, yet the pod succeeds\n%s", st)
			Expect(st.DecidedBy).NotTo(Or(Equal("s1"), Equal("s2")))
			Expect(st.ExitCode).To(HaveValue(BeEquivalentTo(0)))
		})
		It("stops sidecars in reverse order, each after the later one has exited", req("HB-015"), func() {
			tl := get().Timeline
			Expect(endedBefore(tl, "s2", "s1's stop signal", fw.ProbeEvent("s1", probe.TypeSignal))).To(Succeed())
		})
		It("stops the last sidecar only after every main container has exited", req("HB-014"), func() {
			tl := get().Timeline
			Expect(endedBefore(tl, "app", "s2's stop signal", fw.ProbeEvent("s2", probe.TypeSignal))).To(Succeed())
		})
		It("stops each sidecar with its stop signal", req("STOP-009"), func() {
			tl := get().Timeline
			Expect(tl.Happened("SIGTERM received by s1", probeSignal("s1", "SIGTERM"))).To(Succeed())
			Expect(tl.Happened("SIGTERM received by s2", probeSignal("s2", "SIGTERM"))).To(Succeed())
		})
	})
}
