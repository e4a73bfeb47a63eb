package suites

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// registerConcurrentAdoption: generated scenarios found it (seed 1025, docs/conformance.md,
// "Scenarios nobody wrote"): after a supervisor's loss, two verbs that touch the pod at the same
// moment (there `notify`, whose delivery adopts the pod, and `stop`) both detect the loss
// (SUP-003); the second must still do its work, not fail because the other adopted the pod
// first. Here two `stop`s at once; each must exit 0 and the pod must end stopped.
func (s *suite) registerConcurrentAdoption() {
	sc := &fw.Scenario{
		Short:   "two-verbs-adopt",
		Profile: runtimev1.ProfileRecovery,
		Pod:     fw.NewPod().Main("a", fw.Loop()),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := p.WaitForProbe(ctx, "a's start", p.PodTimeout(), fw.ProbeReported("a", probe.TypeStart)); err != nil {
				return err
			}
			if _, err := p.Crash(ctx); err != nil {
				return err
			}
			errs := make(chan error, 2)
			for range 2 {
				go func() { errs <- p.Stop(ctx, nil, false) }()
			}
			return errors.Join(<-errs, <-errs)
		},
	}
	s.ordered("Two verbs adopting a pod at once after its supervisor's loss", sc, func(get func() *fw.Outcome) {
		It("carries out both and ends the pod by the stop", req(spec.SUP003), func() {
			out := get() // the scenario failed if either `stop` did not exit 0
			Expect(out.Final.Phase).To(Equal(v1alpha1.PodSucceeded), "%s\n%s", out.Final, out.Timeline)
			Expect(out.Final.Reason).To(Equal(v1alpha1.ReasonStopped), "%s\n%s", out.Final, out.Timeline)
		})
	})
}
