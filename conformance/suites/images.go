package suites

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/spec"
)

// imageLayout returns the directory of the run's probe image layout.
func imageLayout(ref string) string {
	dir := strings.TrimPrefix(ref, "oci:")
	return strings.TrimSuffix(dir, ":"+fw.ProbeImageTag)
}

func (s *suite) registerImages() {
	// The harness writes manifests to WORK/m and the image to WORK/image: "../image" is relative
	// to the manifest's directory, not to the harness's working directory.
	untagged := &fw.Scenario{
		Short: "image-untagged",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", fw.Exit(0)).Mutate(func(p *v1alpha1.Pod) {
			p.Spec.Containers[0].Image = "oci:" + imageLayout(p.Spec.Containers[0].Image)
		}),
	}
	partlyMissing := s.scenarios.Add(&fw.Scenario{Short: "image-second-missing", Refused: true,
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", fw.Loop()).Main("b", fw.Exit(0)).Mutate(func(p *v1alpha1.Pod) {
			p.Spec.Containers[1].Image = "oci:/nonexistent/podspec-conformance-second:probe"
		})})
	// The pod is created in the It, not in a scenario's BeforeAll: a runtime that resolves the
	// path against another directory refuses the pod, and that refusal is this spec's failure.
	Describe("Image references relative to the manifest", profileLabel("core"), func() {
		It("resolves a relative layout path against the manifest's directory", req(spec.IMG005), func(ctx SpecContext) {
			p, err := s.f.Submit(ctx, "image-relative", fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", fw.Exit(0)).Mutate(func(p *v1alpha1.Pod) {
				p.Spec.Containers[0].Image = "oci:../image:" + fw.ProbeImageTag
			}))
			DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
			Expect(err).NotTo(HaveOccurred())
			Expect(p.Created()).To(BeTrue(), "the layout ../image, relative to the manifest's directory, must resolve\n%s", p.RunResult)
			final, err := p.Wait(ctx)
			Expect(err).NotTo(HaveOccurred())
			tl, err := p.Timeline(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(tl.Started("a")).To(BeTrue(), "%s", tl)
			Expect(final.Phase).To(Equal(v1alpha1.PodSucceeded), "%s", final)
		})
	})
	s.ordered("An image reference without tag or digest", untagged, func(get func() *fw.Outcome) {
		It("resolves when the layout holds exactly one image", req(spec.IMG006), func() {
			Expect(get().Final.Phase).To(Equal(v1alpha1.PodSucceeded), "%s", get().Final)
		})
	})
	Describe("Image resolution at creation", profileLabel("core"), func() {
		It("resolves every image when the pod is created, before any container starts", req(spec.IMG002, spec.IMG003), func(ctx SpecContext) {
			out := s.await(ctx, partlyMissing)
			Expect(out.Pod.RunResult.ExitCode).To(Equal(runtimev1.ExitFailed), "%s", out.Pod.RunResult)
			Expect(out.Pod.RunResult.Error).NotTo(BeNil(), "%s", out.Pod.RunResult)
			Expect(out.Pod.RunResult.Error.Message).To(ContainSubstring("podspec-conformance-second"), "the error names the image")
			Expect(out.Pod.Probe.Events()).To(BeEmpty(), "no container may start when an image cannot be resolved")
		})
		It("refuses an untagged reference to a layout holding several images", req(spec.IMG006), func(ctx SpecContext) {
			dir := filepath.Join(s.f.Config().WorkDir, "image-two-tags")
			_, err := fw.BuildProbeImage(ctx, dir, s.f.Config().ProbeBinary, "")
			Expect(err).NotTo(HaveOccurred())
			Expect(buildSecondTag(ctx, dir, s.f.Config().ProbeBinary)).To(Succeed())
			p, err := s.f.Submit(ctx, "image-ambiguous", fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", fw.Exit(0)).Mutate(func(p *v1alpha1.Pod) {
				p.Spec.Containers[0].Image = "oci:" + dir
			}))
			DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
			Expect(err).NotTo(HaveOccurred())
			Expect(p.Created()).To(BeFalse(), "an ambiguous reference must not resolve\n%s", p.RunResult)
			Expect(p.RunResult.ExitCode).To(Equal(runtimev1.ExitFailed), "%s", p.RunResult)
		})
		It("verifies blob digests and refuses a layout whose layer was altered", req(spec.IMG007, spec.IMG003), func(ctx SpecContext) {
			dir := filepath.Join(s.f.Config().WorkDir, "image-corrupt")
			ref, err := fw.BuildProbeImage(ctx, dir, s.f.Config().ProbeBinary, "")
			Expect(err).NotTo(HaveOccurred())
			Expect(corruptLargestBlob(dir)).To(Succeed())
			p, err := s.f.Submit(ctx, "image-corrupt", fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", fw.Exit(0)).Mutate(func(p *v1alpha1.Pod) {
				p.Spec.Containers[0].Image = ref
			}))
			DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
			Expect(err).NotTo(HaveOccurred())
			Expect(p.Created()).To(BeFalse(), "a corrupted layer must be refused\n%s", p.RunResult)
			Expect(p.RunResult.ExitCode).To(Equal(runtimev1.ExitFailed), "%s", p.RunResult)
			Expect(p.Probe.Events()).To(BeEmpty(), "nothing may run from a corrupted image")
		})
	})
}

// buildSecondTag adds a second image (another tag) to a layout.
func buildSecondTag(ctx context.Context, dir, probeBinary string) error {
	_, err := fw.BuildProbeImageTagged(ctx, dir, probeBinary, "", "second")
	return err
}

// corruptLargestBlob flips one byte of the largest blob (the layer), keeping its size.
func corruptLargestBlob(dir string) error {
	blobs := filepath.Join(dir, "blobs", "sha256")
	entries, err := os.ReadDir(blobs)
	if err != nil {
		return err
	}
	var largest string
	var size int64
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Size() > size {
			largest, size = e.Name(), fi.Size()
		}
	}
	path := filepath.Join(blobs, largest)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	data[len(data)/2] ^= 0xff
	return os.WriteFile(path, data, 0o644)
}
