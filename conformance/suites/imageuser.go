package suites

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// registerImageUser: the image configuration's User is the user of the container's process
// (IMG-011), and a User the image does not define fails the start (IMG-012). The test images
// hold only the probe: no /etc/passwd, so only numeric users resolve.
func (s *suite) registerImageUser() {
	// The lifecycle model judges the image's User on scenarios of their own (judgeRest): the
	// process and its postStart exec hook run as the User's UID and GID; a User the image does
	// not define fails the start of a, and b's exit ends the pod while a waits for its restart.
	s.scenarios.Add(&fw.Scenario{Short: "image-user-hook", Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
		Main("a", fw.ExitAfter(0, ms(1000)).Report(), fw.PostStart(fw.HookHandler(0, 0).Report())).ImageUser("a", "1234:5678")})
	s.scenarios.Add(&fw.Scenario{Short: "image-user-undefined", Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure).
		ExitPolicy(v1alpha1.ExitPolicyAny).Main("a", fw.Exit(0).Report()).Main("b", fw.ExitAfter(0, ms(1500)).Report()).
		ImageUser("a", "nosuchuser")})
	Describe("The image's User", func() {
		submit := func(ctx SpecContext, short, user string, main fw.Workload) *fw.Pod {
			dir := filepath.Join(s.f.Config().WorkDir, "image-"+short)
			ref, err := fw.BuildProbeImageUser(ctx, dir, s.f.Config().ProbeBinary, user)
			Expect(err).NotTo(HaveOccurred())
			p, err := s.f.Submit(ctx, short, fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", main).Mutate(func(p *v1alpha1.Pod) {
				p.Spec.Containers[0].Image = ref
			}))
			DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
			Expect(err).NotTo(HaveOccurred())
			Expect(p.Created()).To(BeTrue(), "%s", p.RunResult)
			return p
		}
		It("runs the container's process as the image configuration's User", req(spec.IMG011), func(ctx SpecContext) {
			p := submit(ctx, "image-user", "1234:5678", fw.Exit(0).Report())
			final, err := p.Wait(ctx)
			Expect(err).NotTo(HaveOccurred())
			tl, err := p.Timeline(ctx)
			Expect(err).NotTo(HaveOccurred())
			reports := tl.All(fw.ProbeEvent("a", probe.TypeReport))
			Expect(reports).To(HaveLen(1), "the workload reports what it sees\n%s\n%s", final, tl)
			r := reports[0].Probe.Report
			Expect(r.UID).To(Equal(1234), "image User 1234:5678\n%s", tl)
			Expect(r.GID).To(Equal(5678), "image User 1234:5678\n%s", tl)
			Expect(final.Phase).To(Equal(v1alpha1.PodSucceeded), "%s", final)
		})
		It("fails the start of a container whose image User names a user the image does not define", req(spec.IMG012), func(ctx SpecContext) {
			p := submit(ctx, "image-nouser", "nosuchuser", fw.Exit(0))
			expectStartError(ctx, p, "an image User the image does not define")
		})
	})
}

// expectStartError waits for pod p to end and checks that its container "a" never ran: reason
// StartError with a message, no exit code, nothing from its probe.
func expectStartError(ctx SpecContext, p *fw.Pod, why string) {
	final, err := p.Wait(ctx)
	Expect(err).NotTo(HaveOccurred())
	t := final.Terminated("a")
	Expect(t).NotTo(BeNil(), "%s", final)
	Expect(t.Reason).To(Equal(v1alpha1.ReasonStartError), "%s\n%s", why, final)
	Expect(t.ExitCode).To(BeNil(), "the process never ran\n%s", final)
	Expect(t.Message).NotTo(BeEmpty(), "the message says why\n%s", final)
	Expect(p.Probe.Events()).To(BeEmpty(), "nothing may run with %s", why)
}
