package suites

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/spec"
)

// glibcModes are the containers of the real-program pod: each runs the glibc probe in one mode
// (conformance/framework/glibc/glibcprobe.c), which prints a line per check and exits 0 only
// if every check passed.
var glibcModes = []struct {
	container string
	args      []string
}{
	{"threads", []string{"threads"}},
	{"privdrop", []string{"privdrop", fw.GlibcProbeUser, "/data"}},
	{"unknown", []string{"unknown-syscall"}},
	{"newer", []string{"newer-syscalls"}},
}

// registerRealPrograms: a program built with glibc, as every program of a current Linux
// distribution is, runs (SEC-010 to SEC-013). The workload is the glibc probe, compiled with
// the host's gcc (`gcc -static -pthread`) into an image that also defines an unprivileged
// user: it creates threads through glibc's pthread_create (clone3 first, clone only after
// ENOSYS), drops from root to the image's user and works in a directory it was given, calls a
// system call number no kernel assigns, and the newer calls glibc tries before older ones. The
// Go probe cannot stand in: Go makes its system calls without a C library and never calls
// clone3. One pod runs the four at once; each spec reads its container's exit and log.
func (s *suite) registerRealPrograms() {
	Describe("Programs built with glibc", Ordered, ContinueOnFailure, profileLabel("core"), func() {
		var p *fw.Pod
		var final *fw.PodStatusView
		BeforeAll(func(ctx SpecContext) {
			ref, err := fw.BuildGlibcProbeImage(ctx, filepath.Join(s.f.Config().WorkDir, "image-glibc"))
			Expect(err).NotTo(HaveOccurred())
			b := fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever)
			for _, m := range glibcModes {
				b.Main(m.container, fw.Exit(0), fw.WithImage(ref), func(c *v1alpha1.Container) {
					c.Command, c.Args = []string{fw.GlibcProbePath}, m.args
				})
			}
			p, err = s.f.Submit(ctx, "glibc", b)
			DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
			Expect(err).NotTo(HaveOccurred())
			Expect(p.Created()).To(BeTrue(), "%s", p.RunResult)
			final, err = p.Wait(ctx)
			Expect(err).NotTo(HaveOccurred())
		})
		// passed fails the spec unless container's run of the glibc probe exited 0, with the
		// probe's own account of every check in the message.
		passed := func(ctx SpecContext, container string) {
			logs, err := s.f.RT.Logs(ctx, p.Name, container, false)
			Expect(err).NotTo(HaveOccurred())
			t := final.Terminated(container)
			Expect(t).NotTo(BeNil(), "%s\n%s", final, logs)
			Expect(t.ExitCode).NotTo(BeNil(), "%s ended without running\n%s\n%s", container, final, logs)
			Expect(*t.ExitCode).To(BeZero(), "the glibc probe in %s reports:\n%s", container, logs)
		}
		It("lets a program built with glibc 2.34 or later create threads with pthread_create", req(spec.SEC010), func(ctx SpecContext) {
			passed(ctx, "threads")
		})
		It("lets a process that starts as root chown to, and become, a user its image defines, and write files as that user", req(spec.SEC011), func(ctx SpecContext) {
			passed(ctx, "privdrop")
		})
		It("fails a system call number no kernel assigns with ENOSYS", req(spec.SEC012), func(ctx SpecContext) {
			passed(ctx, "unknown")
		})
		It("lets clone3, faccessat2, close_range and openat2 work or fail with ENOSYS", req(spec.SEC013), func(ctx SpecContext) {
			passed(ctx, "newer")
		})
	})
}
