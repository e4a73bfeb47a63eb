package suites

import (
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/spec"
)

// registerInitSlow declares an init sequence whose first entry runs long: a runtime that starts
// initContainers together (the mutant parallel_init, docs/mutants.md) starts the second entry
// while the first still runs, however slow container creation is on the machine. The init
// scenario of init.go uses short init containers, which a slow machine can run one after the
// other by accident.
func (s *suite) registerInitSlow() {
	sc := &fw.Scenario{
		Short: "init-slow",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Init("slow", fw.ExitAfter(0, 3*time.Second)).
			Init("next", fw.ExitAfter(0, ms(200))).
			Main("app", fw.ExitAfter(0, ms(200))),
	}
	s.ordered("A long-running init container", sc, func(get func() *fw.Outcome) {
		It("has exited 0 before the next entry of initContainers starts", req(spec.HB001), func() {
			Expect(get().Timeline.ExitsBeforeStart("slow", "next")).To(Succeed())
			Expect(get().Timeline.ExitsBeforeStart("next", "app")).To(Succeed())
		})
	})
}
