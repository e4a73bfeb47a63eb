package suites

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/ocilayout"
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
			p := s.submitImage(ctx, "image-relative", "oci:../image:"+fw.ProbeImageTag)
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
			p := s.submitImage(ctx, "image-ambiguous", "oci:"+dir)
			Expect(p.Created()).To(BeFalse(), "an ambiguous reference must not resolve\n%s", p.RunResult)
			Expect(p.RunResult.ExitCode).To(Equal(runtimev1.ExitFailed), "%s", p.RunResult)
		})
		It("verifies blob digests and refuses a layout whose layer was altered", req(spec.IMG007, spec.IMG003), func(ctx SpecContext) {
			dir := filepath.Join(s.f.Config().WorkDir, "image-corrupt")
			ref, err := fw.BuildProbeImage(ctx, dir, s.f.Config().ProbeBinary, "")
			Expect(err).NotTo(HaveOccurred())
			Expect(corruptLargestBlob(dir)).To(Succeed())
			expectImageRefused(s.submitImage(ctx, "image-corrupt", ref), "a corrupted layer must be refused")
		})
		// The layer above is gzip with compressed blocks: a runtime that skipped the digest check
		// would still fail to decompress it. These layers' altered byte is file content, and the
		// blob still decompresses (an uncompressed tar; a gzip of stored blocks with its trailer
		// fixed), so only a digest check can tell. The gzip one holds every runtime that unpacks
		// tar+gzip, which the suite's own images need; the tar one a runtime that takes plain tar.
		for _, layer := range []struct {
			what, dir string
			add       func(dir, base, tag string, entries []fw.RawEntry) (string, error)
		}{
			{"an uncompressed layer whose altered content still reads as a tar", "image-altered-tar", fw.AddRawLayer},
			{"a gzip layer whose altered content still decompresses to a tar", "image-altered-gzip", fw.AddStoredGzipLayer},
		} {
			It("verifies the digest of "+layer.what, req(spec.IMG007), func(ctx SpecContext) {
				dir := filepath.Join(s.f.Config().WorkDir, layer.dir)
				_, err := fw.BuildProbeImage(ctx, dir, s.f.Config().ProbeBinary, "")
				Expect(err).NotTo(HaveOccurred())
				ref, err := layer.add(dir, fw.ProbeImageTag, "altered", []fw.RawEntry{{Name: "img007", Type: tar.TypeReg, Content: alteredLayerContent}})
				Expect(err).NotTo(HaveOccurred())
				Expect(alterLayer(ctx, ref, alteredLayerContent)).To(Succeed())
				expectImageRefused(s.submitImage(ctx, layer.dir, ref), "a layer whose content no longer matches its digest must be refused, although it still reads as a valid tar")
			})
		}
	})
}

// submitImage creates the pod name, one container (a, exiting 0) of image ref, and removes it
// after the spec.
func (s *suite) submitImage(ctx SpecContext, name, ref string) *fw.Pod {
	GinkgoHelper()
	return s.submitPod(ctx, name, fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", fw.Exit(0), fw.WithImage(ref)))
}

// expectImageRefused holds a pod whose image must fail its verification (IMG-007): not created,
// refused with exit code Failed, and nothing of it ran. why says what made the image bad.
func expectImageRefused(p *fw.Pod, why string) {
	GinkgoHelper()
	Expect(p.Created()).To(BeFalse(), "%s\n%s", why, p.RunResult)
	Expect(p.RunResult.ExitCode).To(Equal(runtimev1.ExitFailed), "%s", p.RunResult)
	Expect(p.Probe.Events()).To(BeEmpty(), "nothing may run from an image refused: %s", why)
}

// alteredLayerContent is the file content of the uncompressed layer the IMG-007 spec alters.
const alteredLayerContent = "img-007: this content was altered after its layer's digest was taken"

// alterLayer changes one byte of content, the data of a regular file in the top layer of
// image ref, keeping the blob's size. The layer is an uncompressed tar, or a tar+gzip of stored
// deflate blocks (fw.AddStoredGzipLayer), whose trailer (CRC-32 of the data) is then fixed. It
// fails unless the altered blob still decompresses and reads as a tar holding the altered
// content (so only a digest check can refuse it) and the layout, read with ocilayout, is then
// refused for a digest mismatch.
func alterLayer(ctx context.Context, ref, content string) error {
	r, err := ocilayout.ParseReference(ref, "")
	if err != nil {
		return err
	}
	img, err := ocilayout.Resolve(ctx, r, nil)
	if err != nil {
		return fmt.Errorf("the layout before it was altered: %w", err)
	}
	top := img.Manifest.Layers[len(img.Manifest.Layers)-1]
	gzipped := top.MediaType == ocispec.MediaTypeImageLayerGzip
	if !gzipped && top.MediaType != ocispec.MediaTypeImageLayer {
		return fmt.Errorf("the top layer is %s, neither tar nor tar+gzip", top.MediaType)
	}
	path := filepath.Join(r.Path, ocispec.ImageBlobsDir, top.Digest.Algorithm().String(), top.Digest.Encoded())
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if n := bytes.Count(data, []byte(content)); n != 1 {
		return fmt.Errorf("the layer holds the content %d times, want once", n)
	}
	i := bytes.Index(data, []byte(content))
	data[i] ^= 0x20 // a letter of the content, in the other case: the tar header is untouched
	altered := string(data[i : i+len(content)])
	tarData := data
	if gzipped {
		// The data are stored, so they decompress to the altered tar; only the trailer's CRC-32
		// (the 8 bytes' first 4, little-endian) no longer matches.
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return err
		}
		if tarData, err = io.ReadAll(zr); !errors.Is(err, gzip.ErrChecksum) {
			return fmt.Errorf("the altered gzip layer should fail only its checksum before the trailer is fixed, got %v", err)
		}
		binary.LittleEndian.PutUint32(data[len(data)-8:], crc32.ChecksumIEEE(tarData))
		if zr, err = gzip.NewReader(bytes.NewReader(data)); err == nil {
			_, err = io.ReadAll(zr)
		}
		if err != nil {
			return fmt.Errorf("the altered gzip layer does not decompress: %w", err)
		}
	}
	tr := tar.NewReader(bytes.NewReader(tarData))
	found := false
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("the altered layer is no longer a valid tar: %w", err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return fmt.Errorf("the altered layer is no longer a valid tar: entry %s: %w", hdr.Name, err)
		}
		found = found || string(b) == altered
	}
	if !found {
		return fmt.Errorf("the altered layer has no file holding %q", altered)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	if _, err := ocilayout.Resolve(ctx, r, nil); !errors.Is(err, ocilayout.ErrDigestMismatch) {
		return fmt.Errorf("the altered layout should fail its digest check, got %v", err)
	}
	return nil
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
