package suites

import (
	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// registerCancelledRestart: generated scenarios found it (seeds 1002 and 1007, docs/conformance.md,
// "Scenarios nobody wrote"): a container that had ended twice waits out the back-off of its second
// restart when the pod is stopped. The stop cancels the restart (STOP-005), so no new instance
// starts: the last termination is the container's state again, and the one before it stays its
// lastState (STAT-008 moves a termination to lastState only when a new instance starts). The
// reference left the last termination in both.
func (s *suite) registerCancelledRestart() {
	sc := &fw.Scenario{
		Short: "cancelled-second-restart",
		// The first restart comes after 0.1 s, the second after 30 s: the stop falls into it.
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure).Backoff(0.1, 300, 30, 600).
			Main("a", fw.ExitAfter(0, ms(100)).Codes("3", "4", "0")).
			Main("keep", fw.Loop()),
		Drive: waitThenStop("a's second exit and keep's workload start", func(tl *fw.Timeline) bool {
			_, kept := tl.First(fw.ProbeEvent("keep", probe.TypeStart))
			return kept && len(tl.All(fw.RuntimeEv(runtimev1.EventContainerExited, "a"))) >= 2
		}, nil, nil),
	}
	s.ordered("A second restart cancelled by the stop", sc, func(get func() *fw.Outcome) {
		It("keeps the last termination as the state and the one before as lastState", req(spec.STAT008, spec.STOP005), func() {
			out := get()
			exits := out.Timeline.All(fw.RuntimeEv(runtimev1.EventContainerExited, "a"))
			Expect(exits).To(HaveLen(2), "a ended twice\n%s", out.Timeline)
			Expect(out.Timeline.All(fw.RuntimeEv(runtimev1.EventContainerStarted, "a"))).To(HaveLen(2), "no third instance starts\n%s", out.Timeline)
			a := out.Final.Container("a")
			Expect(a).NotTo(BeNil())
			Expect(a.State.Terminated).NotTo(BeNil(), "a's state is its last termination\n%s", out.Final)
			Expect(a.State.Terminated.ContainerID).To(Equal(exits[1].Runtime.ContainerID), "state: the second instance's end\n%s\n%s", out.Final, out.Timeline)
			Expect(a.State.Terminated.ExitCode).To(HaveValue(BeEquivalentTo(4)))
			Expect(a.LastState.Terminated).NotTo(BeNil(), "a's lastState is its first termination\n%s", out.Final)
			Expect(a.LastState.Terminated.ContainerID).To(Equal(exits[0].Runtime.ContainerID), "lastState: the first instance's end, not the second's again\n%s\n%s", out.Final, out.Timeline)
		})
	})
}
