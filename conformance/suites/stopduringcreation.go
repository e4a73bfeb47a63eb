package suites

import (
	"fmt"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/spec"
)

// registerStopDuringCreation declares MAIN-004's spec: a stop that arrives while a main
// container is being created is never followed by that container's start. The main container
// mounts a hostPath volume on the harness's lookup gate (fw.LookupGate, a FUSE directory whose
// lookups it can hold), so its creation waits, deterministically, at the resolution of the
// volume's path: the harness requests the stop then, waits for PodTerminating, and only then
// lets the creation go on. A runtime that does not look again, after the creation, whether a
// stop forbids the start (the mutant start_after_stop) starts it after PodTerminating. The
// harness mounts the FUSE file system itself, so it must run as root.
func (s *suite) registerStopDuringCreation() {
	const short = "stop-during-creation"
	Describe("A stop requested while a main container is being created", func() {
		It("is never followed by that container's start", req(spec.MAIN004, spec.MAIN002), func(ctx SpecContext) {
			requireRoot("mount the FUSE directory that holds the creation", spec.MAIN004+" is")
			gate, err := fw.MountLookupGate(os.TempDir())
			if err != nil {
				Skip(fmt.Sprintf("not checkable: %v; %s is untested here", err, spec.MAIN004))
			}
			DeferCleanup(func() { Expect(gate.Close()).To(Succeed()) })
			p, err := s.f.Start(ctx, short, fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).HostPath("gated", gate.Dir).
				Init("i1", fw.ExitAfter(0, 2*time.Second)).
				Main("app", fw.Loop(), fw.WithMount("gated", "/gated", true)))
			DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
			DeferCleanup(gate.Open) // first of the clean-ups: nothing stays held
			Expect(err).NotTo(HaveOccurred())
			_, err = p.WaitFor(ctx, "i1 to start", p.PodTimeout(), fw.AllStarted("i1"))
			Expect(err).NotTo(HaveOccurred())
			gate.Arm()
			select {
			case <-gate.Blocked():
			case <-time.After(p.PodTimeout()):
				tl, _ := p.Timeline(ctx)
				Fail(fmt.Sprintf("the runtime never resolved app's hostPath volume %s while creating app\n%s", gate.Dir, tl))
			}
			Expect(p.Stop(ctx, nil, false)).To(Succeed())
			_, err = p.WaitFor(ctx, "PodTerminating", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ok := tl.First(fw.RuntimeEv(runtimev1.EventPodTerminating, ""))
				return ok
			})
			Expect(err).NotTo(HaveOccurred())
			gate.Open()
			_, err = p.Wait(ctx)
			Expect(err).NotTo(HaveOccurred())
			tl, err := p.Timeline(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(tl.NeverStarted("app")).To(Succeed(), "app was being created when the stop sequence began (PodTerminating): it must never start")
		})
	})
}
