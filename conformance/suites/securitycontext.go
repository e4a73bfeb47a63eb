package suites

import (
	"strconv"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// withSecurityContext sets the container's securityContext.
func withSecurityContext(sc v1alpha1.SecurityContext) fw.ContainerOpt {
	return func(c *v1alpha1.Container) { c.SecurityContext = &sc }
}

// registerSecurityContext: a container's securityContext is what its process gets (SEC-021,
// SEC-023, SEC-024), and runAsNonRoot refuses user 0 (SEC-022). The probe image has no User
// and no /etc/passwd: its processes run as root, and a runAsUser without runAsGroup gets
// group 0.
func (s *suite) registerSecurityContext() {
	yes := true
	sc := &fw.Scenario{
		Short: "security-context",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Main("user", fw.Exit(0).Report(), withSecurityContext(v1alpha1.SecurityContext{RunAsUser: i64(1234), RunAsGroup: i64(5678)})).
			Main("user-only", fw.Exit(0).Report(), withSecurityContext(v1alpha1.SecurityContext{RunAsUser: i64(1234)})).
			Main("read-only", fw.Exit(0).Report(), withSecurityContext(v1alpha1.SecurityContext{ReadOnlyRootFilesystem: &yes})).
			Main("caps", fw.Exit(0).Report(), withSecurityContext(v1alpha1.SecurityContext{Capabilities: &v1alpha1.Capabilities{
				Drop: []v1alpha1.Capability{"ALL"}, Add: []v1alpha1.Capability{"CHOWN", "DAC_OVERRIDE", "FOWNER"},
			}})).
			Main("drop-one", fw.Exit(0).Report(), withSecurityContext(v1alpha1.SecurityContext{Capabilities: &v1alpha1.Capabilities{
				Drop: []v1alpha1.Capability{"NET_RAW"},
			}})),
	}
	s.ordered("A container's securityContext", sc, func(get func() *fw.Outcome) {
		report := func(container string) *probe.Report {
			rs := get().Timeline.All(fw.ProbeEvent(container, probe.TypeReport))
			Expect(rs).To(HaveLen(1), "%s reports what it sees\n%s", container, get().Timeline)
			return rs[0].Probe.Report
		}
		It("runs the process as runAsUser and runAsGroup", req(spec.SEC021), func() {
			r := report("user")
			Expect([]int{r.UID, r.GID}).To(Equal([]int{1234, 5678}), "runAsUser 1234, runAsGroup 5678 over an image without User")
			r = report("user-only")
			Expect([]int{r.UID, r.GID}).To(Equal([]int{1234, 0}), "runAsUser 1234, a user ID the image's /etc/passwd does not have: group 0")
		})
		It("mounts the root filesystem read-only with readOnlyRootFilesystem", req(spec.SEC023), func() {
			Expect(report("read-only").RootfsWritable).To(BeFalse(), "readOnlyRootFilesystem: true, yet the root filesystem was written")
			Expect(report("drop-one").RootfsWritable).To(BeTrue(), "a root process without readOnlyRootFilesystem writes the root filesystem")
		})
		It("gives the default capabilities less those dropped, plus those added", req(spec.SEC024), func() {
			bnd, err := strconv.ParseUint(report("caps").CapBnd, 16, 64)
			Expect(err).NotTo(HaveOccurred())
			Expect(bnd).To(Equal(uint64(0b1011)), "drop ALL, add CHOWN, DAC_OVERRIDE, FOWNER: CapBnd %x, want b", bnd)
			bnd, err = strconv.ParseUint(report("drop-one").CapBnd, 16, 64)
			Expect(err).NotTo(HaveOccurred())
			Expect(bnd).To(Equal(allowedCaps&^(1<<13)), "drop NET_RAW (bit 13): CapBnd %x", bnd)
		})
	})
	Describe("runAsNonRoot", profileLabel("core"), func() {
		It("fails the start of a container whose process would run as user 0", req(spec.SEC022), func(ctx SpecContext) {
			p, err := s.f.Submit(ctx, "non-root", fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
				Main("a", fw.Exit(0), withSecurityContext(v1alpha1.SecurityContext{RunAsNonRoot: &yes})))
			DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
			Expect(err).NotTo(HaveOccurred())
			Expect(p.Created()).To(BeTrue(), "%s", p.RunResult)
			expectStartError(ctx, p, "runAsNonRoot over an image that runs as root")
		})
	})
}
