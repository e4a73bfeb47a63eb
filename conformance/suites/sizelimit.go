package suites

import (
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/spec"
)

// registerSizeLimit: a disk-backed emptyDir volume that outgrows its sizeLimit gets the pod
// evicted: the stop sequence begins with reason Evicted and a message naming that volume, not
// another one within its own limit (VOL-016).
func (s *suite) registerSizeLimit() {
	sc := &fw.Scenario{
		Short: "size-limit",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			EmptyDirLimit("data", "1Mi").EmptyDirLimit("roomy", "64Mi").
			// app ends by itself after 30 s (a runtime may measure as seldom as the kubelet, every
			// 10 s), so that a runtime that never evicts fails in this spec, not in its wait.
			Main("app", fw.ExitAfter(0, 30*time.Second).Fill("/data/big", 4<<20).Fill("/roomy/small", 1<<20),
				fw.WithMount("data", "/data", false), fw.WithMount("roomy", "/roomy", false)),
	}
	s.ordered("A pod whose disk-backed emptyDir volume outgrows its sizeLimit", sc, func(get func() *fw.Outcome) {
		It("is stopped with reason Evicted and a message that names the volume", req(spec.VOL016), func() {
			out := get()
			Expect(out.Final.Reason).To(Equal(v1alpha1.ReasonEvicted), "the pod's termination reason: %s", out.Final)
			Expect(out.Final.Phase).To(Equal(v1alpha1.PodFailed), "%s", out.Final)
			Expect(out.Final.Message).To(ContainSubstring(`"data"`), "status.message must name the volume over its limit")
			Expect(out.Final.Message).NotTo(ContainSubstring(`"roomy"`), "status.message names a volume within its limit")
			t := out.Final.Terminated("app")
			Expect(t).NotTo(BeNil(), "%s", out.Final)
			Expect(t.Reason).To(Equal(v1alpha1.ReasonEvicted), "app, stopped by the eviction's stop sequence: %s", out.Final)
		})
	})
}
