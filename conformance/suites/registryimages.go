package suites

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/spec"
)

// whichFile is the file of the registry specs' images that says which image an instance
// started from: each image is the probe image plus a layer holding this file.
const whichFile = "/which"

// registryFixture is one spec's registry (fw.Registry: docker-registry on 127.0.0.1, plain
// HTTP, its access log kept) and the layout its images are built in, pushed to the
// repository RUNID/SHORT.
type registryFixture struct {
	reg    *fw.Registry
	repo   string
	layout string
}

// newRegistry starts a registry for the spec (stopped when the spec ends, failed or not) and
// builds the probe image in a layout of its own.
func (s *suite) newRegistry(ctx context.Context, short string) *registryFixture {
	GinkgoHelper()
	dir := filepath.Join(s.f.Config().WorkDir, "registry-"+short)
	reg, err := fw.StartRegistry(filepath.Join(dir, "registry"))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(reg.Stop)
	f := &registryFixture{reg: reg, repo: s.f.RunID() + "/" + short, layout: filepath.Join(dir, "layout")}
	_, err = fw.BuildProbeImage(ctx, f.layout, s.f.Config().ProbeBinary, "")
	Expect(err).NotTo(HaveOccurred())
	return f
}

// image adds the image tag to the fixture's layout: the probe image plus an uncompressed layer
// whose /which holds which. Every image of a fixture shares the probe's layer.
func (f *registryFixture) image(tag, which string) {
	GinkgoHelper()
	_, err := fw.AddRawLayer(f.layout, fw.ProbeImageTag, tag, []fw.RawEntry{{Name: strings.TrimPrefix(whichFile, "/"), Type: tar.TypeReg, Content: which}})
	Expect(err).NotTo(HaveOccurred())
}

// push pushes the layout's image tag to the fixture's repository as regTag (moving it when it
// names another image), and returns the image manifest's digest.
func (f *registryFixture) push(ctx context.Context, tag, regTag string) string {
	GinkgoHelper()
	d, err := f.reg.Push(ctx, f.layout, tag, f.ref(regTag))
	Expect(err).NotTo(HaveOccurred())
	return d
}

// ref is the registry reference of the repository with a tag (":TAG"), a digest ("@sha256:…")
// or neither ("").
func (f *registryFixture) ref(suffix string) string {
	if suffix != "" && !strings.HasPrefix(suffix, "@") {
		suffix = ":" + suffix
	}
	return f.reg.Ref(f.repo + suffix)
}

// imageID is the imageID IMG-016 asks for an image of the repository: HOST/PATH@DIGEST.
func (f *registryFixture) imageID(digest string) string { return f.reg.Ref(f.repo + "@" + digest) }

// mark is the number of requests the registry has answered so far, for requestsSince.
func (f *registryFixture) mark() int {
	GinkgoHelper()
	all, err := f.reg.Requests()
	Expect(err).NotTo(HaveOccurred())
	return len(all)
}

// requestsSince is what the registry was asked about the repository since mark.
func (f *registryFixture) requestsSince(mark int) []fw.RegistryRequest {
	GinkgoHelper()
	qs, err := f.reg.RequestsFor(f.repo, mark)
	Expect(err).NotTo(HaveOccurred())
	return qs
}

// layers are the layer digests of the layout's image tag, base first.
func (f *registryFixture) layers(ctx context.Context, tag string) []string {
	GinkgoHelper()
	r, err := ocilayout.ParseReference("oci:"+f.layout+":"+tag, "")
	Expect(err).NotTo(HaveOccurred())
	img, err := ocilayout.Resolve(ctx, r, nil)
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, l := range img.Manifest.Layers {
		out = append(out, l.Digest.String())
	}
	return out
}

// manifestAsked reports whether one of the requests asked the registry for a manifest (by tag
// or digest, HEAD or GET).
func manifestAsked(qs []fw.RegistryRequest) bool {
	for _, q := range qs {
		if strings.Contains(q.Path, "/manifests/") {
			return true
		}
	}
	return false
}

// blobGets counts the requests that fetched the blob digest.
func blobGets(qs []fw.RegistryRequest, digest string) int {
	n := 0
	for _, q := range qs {
		if q.Method == "GET" && strings.HasSuffix(q.Path, "/blobs/"+digest) {
			n++
		}
	}
	return n
}

// whichPod is a pod of one container, a, of image ref and pull policy (none when ""), that
// reads /which and exits 0.
func whichPod(ref string, policy v1alpha1.PullPolicy) *fw.PodBuilder {
	return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", fw.Exit(0).Report().Read(whichFile), fw.WithImage(ref), withPullPolicy(policy))
}

func withPullPolicy(p v1alpha1.PullPolicy) fw.ContainerOpt {
	return func(c *v1alpha1.Container) { c.ImagePullPolicy = p }
}

// submitPod creates pod short and removes it after the spec.
func (s *suite) submitPod(ctx context.Context, short string, b *fw.PodBuilder) *fw.Pod {
	GinkgoHelper()
	p, err := s.f.Submit(ctx, short, b)
	DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
	Expect(err).NotTo(HaveOccurred())
	return p
}

// runWhich runs a whichPod to its end and returns what its container read in /which; the pod
// must be created and succeed.
func (s *suite) runWhich(ctx context.Context, short, ref string, policy v1alpha1.PullPolicy) string {
	GinkgoHelper()
	p := s.submitPod(ctx, short, whichPod(ref, policy))
	Expect(p.Created()).To(BeTrue(), "pod %s of image %s (imagePullPolicy %q) must be created\n%s", short, ref, policy, p.RunResult)
	_, tl := waitSucceeded(ctx, p, "pod "+short)
	r := workloadReport(tl, "a")
	Expect(r.FileErrors).NotTo(HaveKey(whichFile))
	return r.Files[whichFile]
}

// waitSucceeded waits for pod p's end, which must be Succeeded (why says what could have
// kept it from it), and returns its final status and timeline.
func waitSucceeded(ctx context.Context, p *fw.Pod, why string) (*fw.PodStatusView, *fw.Timeline) {
	GinkgoHelper()
	final, err := p.Wait(ctx)
	Expect(err).NotTo(HaveOccurred())
	tl, err := p.Timeline(ctx)
	Expect(err).NotTo(HaveOccurred())
	Expect(final.Phase).To(Equal(v1alpha1.PodSucceeded), "%s\n%s\n%s", why, final, tl)
	return final, tl
}

// runHeld runs a whichPod of ref and policy, which must start from the image the runtime holds
// for ref (the one whose /which holds want) without contacting the registry.
func (s *suite) runHeld(ctx context.Context, f *registryFixture, short, ref string, policy v1alpha1.PullPolicy, want string) {
	GinkgoHelper()
	m := f.mark()
	Expect(s.runWhich(ctx, short, ref, policy)).To(Equal(want), "%s (imagePullPolicy %q) must start from the image held for it", ref, policy)
	Expect(f.requestsSince(m)).To(BeEmpty(), "%s (imagePullPolicy %q): the registry must not be contacted for an image held", ref, policy)
}

// expectPullRefused holds a pod whose image could not be pulled: not created, refused with
// exit code Failed and an error naming the image, nothing of it ran (IMG-003, IMG-017). It
// returns the error's message.
func expectPullRefused(p *fw.Pod, ref, why string) string {
	GinkgoHelper()
	Expect(p.Created()).To(BeFalse(), "%s\n%s", why, p.RunResult)
	Expect(p.RunResult.ExitCode).To(Equal(runtimev1.ExitFailed), "%s", p.RunResult)
	Expect(p.RunResult.Error).NotTo(BeNil(), "%s", p.RunResult)
	Expect(p.RunResult.Error.Message).To(ContainSubstring(ref), "the error must name the image %s", ref)
	Expect(p.Probe.Events()).To(BeEmpty(), "nothing may run from an image that was not pulled: %s", why)
	return p.RunResult.Error.Message
}

// foreignArch is an architecture other than the harness's (and so the runtime's, on one host).
func foreignArch() string {
	if goruntime.GOARCH == "s390x" {
		return "ppc64le"
	}
	return "s390x"
}

// registerRegistryImages: images pulled from a registry (IMG-015 … IMG-025). Each spec starts
// its own registry (fw.Registry: Debian's docker-registry on 127.0.0.1, plain HTTP, no
// credentials, as docs/runtime-interface.md says a runtime must pull from) and pushes images
// built from the probe image to it; which image an instance started from is what it reads in
// /which, and what a runtime asked the registry is in the registry's access log. A runtime's
// own configuration (credentials, CAs, insecure registries) is outside the contract, so
// refused credentials and the plain-HTTP rule for other registries (IMG-024) are not tested;
// nor are IMG-017's unknown host (a lookup would leave the host) and registry that stops
// answering (its bound is a runtime's own timeout): the reference's Go tests hold it to those.
func (s *suite) registerRegistryImages() {
	Describe("Registry images", profileLabel("core"), func() {
		It("resolves a tag naming a multi-platform index to its platform's manifest, reports it as imageID, and starts every instance from it after the tag moved",
			req(spec.IMG015, spec.IMG016), func(ctx SpecContext) {
				f := s.newRegistry(ctx, "reg-pin")
				f.image("native", "native")
				f.image("foreign", "foreign")
				f.image("moved", "moved")
				// The foreign platform's manifest comes first: a runtime that took the first one
				// would run it.
				digests, err := f.reg.PushIndex(ctx, f.ref("v1"),
					fw.PlatformImage{Layout: f.layout, Tag: "foreign", OS: "linux", Architecture: foreignArch()},
					fw.PlatformImage{Layout: f.layout, Tag: "native", OS: "linux", Architecture: goruntime.GOARCH})
				Expect(err).NotTo(HaveOccurred())
				native := digests[1]
				// Instance 1 waits for the harness's go, which comes after the tag moved, and
				// fails; instance 2 starts after the move. imagePullPolicy Always: a runtime
				// that asked the registry again for a restart would get the moved tag.
				b := fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure).
					Main("a", fw.Exit(0).Codes("1", "0").WaitFor("go").Report().Read(whichFile), fw.WithImage(f.ref("v1")), withPullPolicy(v1alpha1.PullAlways)))
				p := s.submitPod(ctx, "reg-pin", b)
				Expect(p.Created()).To(BeTrue(), "%s", p.RunResult)
				st, err := p.Status(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(st.Container("a")).NotTo(BeNil(), "%s", st)
				Expect(st.Container("a").ImageID).To(Equal(f.imageID(native)), "imageID must be the platform's manifest, by digest\n%s", st)
				_, err = p.WaitFor(ctx, "instance 1 reports", p.PodTimeout(), func(tl *fw.Timeline) bool {
					_, ok := tl.First(fw.ProbeEvent("a", probe.TypeReport))
					return ok
				})
				Expect(err).NotTo(HaveOccurred())
				f.push(ctx, "moved", "v1")
				Expect(p.Touch("go")).To(Succeed())
				final, tl := waitSucceeded(ctx, p, "the tag moved after the pod was created")
				read := map[int]string{}
				for _, e := range tl.All(fw.ProbeEvent("a", probe.TypeReport)) {
					if e.Probe.Role == probe.RoleWorkload && e.Probe.Report != nil {
						read[e.Probe.Instance] = e.Probe.Report.Files[whichFile]
					}
				}
				Expect(read).To(Equal(map[int]string{1: "native", 2: "native"}), "what each instance read in %s\n%s", whichFile, tl)
				Expect(final.Container("a").ImageID).To(Equal(f.imageID(native)), "%s", final)
			})
		It("reports oci:ABSOLUTE-PATH@DIGEST as imageID for an image from a layout", req(spec.IMG016), func(ctx SpecContext) {
			p := s.submitPod(ctx, "reg-layout-id", fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", fw.Exit(0)))
			Expect(p.Created()).To(BeTrue(), "%s", p.RunResult)
			r, err := ocilayout.ParseReference(s.f.Image, "")
			Expect(err).NotTo(HaveOccurred())
			img, err := ocilayout.Resolve(ctx, r, nil)
			Expect(err).NotTo(HaveOccurred())
			abs, err := filepath.Abs(r.Path)
			Expect(err).NotTo(HaveOccurred())
			final, err := p.Wait(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(final.Container("a")).NotTo(BeNil(), "%s", final)
			Expect(final.Container("a").ImageID).To(Equal(ocilayout.Transport+abs+"@"+img.Digest), "%s", final)
		})
		It("fails creation with an error naming the image and the reason when the registry has no such image or refuses the connection", req(spec.IMG017, spec.IMG003), func(ctx SpecContext) {
			f := s.newRegistry(ctx, "reg-fail")
			missing := f.ref("absent")
			msg := expectPullRefused(s.submitPod(ctx, "reg-fail-absent", whichPod(missing, "")), missing, "the registry has no image of that tag")
			Expect(msg).To(MatchRegexp(`(?i)not found|no such|has no|unknown|does not exist|404`), "the error must say the registry has no such image")
			f.reg.Stop()
			msg = expectPullRefused(s.submitPod(ctx, "reg-fail-refused", whichPod(missing, "")), missing, "the registry is gone")
			Expect(msg).To(MatchRegexp(`(?i)refused`), "the error must say the registry refused the connection")
		})
		It("never starts an instance from content a failed pull fetched, and pulls again once the registry serves the right content", req(spec.IMG018, spec.IMG017, spec.IMG003), func(ctx SpecContext) {
			f := s.newRegistry(ctx, "reg-corrupt")
			content := "img-018: the registry serves this layer with one byte changed"
			f.image("good", content)
			f.push(ctx, "good", "v1")
			layers := f.layers(ctx, "good")
			data := f.reg.BlobData(layers[len(layers)-1])
			good, err := os.ReadFile(data)
			Expect(err).NotTo(HaveOccurred())
			Expect(bytes.Count(good, []byte(content))).To(Equal(1), "the top layer is an uncompressed tar holding the content once")
			// One letter of the file's content in the other case: the blob is still a valid
			// tar of the same size, so only a digest check can tell.
			bad := bytes.Clone(good)
			bad[bytes.Index(bad, []byte(content))] ^= 0x20
			Expect(os.WriteFile(data, bad, 0o644)).To(Succeed())
			ref := f.ref("v1")
			for _, short := range []string{"reg-corrupt-1", "reg-corrupt-2"} {
				msg := expectPullRefused(s.submitPod(ctx, short, whichPod(ref, v1alpha1.PullAlways)), ref, "the registry serves a layer that does not match its digest")
				Expect(msg).To(MatchRegexp(`(?i)digest|checksum`), "the error must say content did not match its digest")
			}
			Expect(os.WriteFile(data, good, 0o644)).To(Succeed())
			Expect(s.runWhich(ctx, "reg-corrupt-3", ref, v1alpha1.PullAlways)).To(Equal(content),
				"once the registry serves the right content, a pull must fetch it: nothing of the failed pulls may stand in for it")
		})
		It("with imagePullPolicy Always, asks the registry which manifest the tag names at each creation and fetches only the blobs it lacks", req(spec.IMG019), func(ctx SpecContext) {
			f := s.newRegistry(ctx, "reg-always")
			f.image("a", "a")
			f.image("b", "b")
			f.push(ctx, "a", "v1")
			ref := f.ref("v1")
			Expect(s.runWhich(ctx, "reg-always-1", ref, v1alpha1.PullAlways)).To(Equal("a"))
			shared := f.layers(ctx, "a")[0]
			f.push(ctx, "b", "v1")
			m := f.mark()
			Expect(s.runWhich(ctx, "reg-always-2", ref, v1alpha1.PullAlways)).To(Equal("b"), "the tag moved: Always must resolve it again")
			qs := f.requestsSince(m)
			Expect(manifestAsked(qs)).To(BeTrue(), "requests %v", qs)
			Expect(blobGets(qs, shared)).To(BeZero(), "the probe layer, held since the first pull, must not be fetched again: requests %v", qs)
			m = f.mark()
			Expect(s.runWhich(ctx, "reg-always-3", ref, v1alpha1.PullAlways)).To(Equal("b"))
			qs = f.requestsSince(m)
			Expect(manifestAsked(qs)).To(BeTrue(), "Always must ask the registry at each creation: requests %v", qs)
			for _, q := range qs {
				Expect(q.Path).NotTo(ContainSubstring("/blobs/"), "every blob is held: requests %v", qs)
			}
		})
		It("with imagePullPolicy IfNotPresent, pulls an image it does not hold and then uses it without contacting the registry", req(spec.IMG020), func(ctx SpecContext) {
			f := s.newRegistry(ctx, "reg-ifnp")
			f.image("a", "a")
			f.image("b", "b")
			f.push(ctx, "a", "v1")
			ref := f.ref("v1")
			m := f.mark()
			Expect(s.runWhich(ctx, "reg-ifnp-1", ref, v1alpha1.PullIfNotPresent)).To(Equal("a"))
			Expect(f.requestsSince(m)).NotTo(BeEmpty(), "an image the runtime does not hold must be pulled")
			f.push(ctx, "b", "v1")
			s.runHeld(ctx, f, "reg-ifnp-2", ref, v1alpha1.PullIfNotPresent, "a")
		})
		It("with imagePullPolicy Never, fails creation without contacting the registry when it holds no image, and uses one it holds", req(spec.IMG021), func(ctx SpecContext) {
			f := s.newRegistry(ctx, "reg-never")
			f.image("a", "a")
			f.push(ctx, "a", "v1")
			ref := f.ref("v1")
			m := f.mark()
			expectPullRefused(s.submitPod(ctx, "reg-never-1", whichPod(ref, v1alpha1.PullNever)), ref, "Never, and no image held")
			Expect(f.requestsSince(m)).To(BeEmpty(), "Never must not contact the registry")
			Expect(s.runWhich(ctx, "reg-never-2", ref, v1alpha1.PullIfNotPresent)).To(Equal("a"))
			s.runHeld(ctx, f, "reg-never-3", ref, v1alpha1.PullNever, "a")
		})
		It("without imagePullPolicy, treats the tag latest and no tag as Always and another tag as IfNotPresent", req(spec.IMG022), func(ctx SpecContext) {
			f := s.newRegistry(ctx, "reg-default")
			f.image("a", "a")
			f.image("b", "b")
			for _, t := range []string{"latest", "v1"} {
				f.push(ctx, "a", t)
			}
			cases := []struct{ short, suffix string }{{"latest", "latest"}, {"untagged", ""}, {"v1", "v1"}}
			for _, c := range cases {
				Expect(s.runWhich(ctx, "reg-default-"+c.short+"-1", f.ref(c.suffix), "")).To(Equal("a"), "%s", f.ref(c.suffix))
			}
			for _, t := range []string{"latest", "v1"} {
				f.push(ctx, "b", t)
			}
			for _, c := range cases {
				short := "reg-default-" + c.short + "-2"
				if c.short == "v1" { // IfNotPresent
					s.runHeld(ctx, f, short, f.ref(c.suffix), "", "a")
					continue
				}
				m := f.mark()
				Expect(s.runWhich(ctx, short, f.ref(c.suffix), "")).To(Equal("b"), "%s is Always: the tag moved", f.ref(c.suffix))
				qs := f.requestsSince(m)
				Expect(manifestAsked(qs)).To(BeTrue(), "%s is Always: requests %v", f.ref(c.suffix), qs)
			}
		})
		It("keeps every image it resolved for a pod, so that an instance started after the registry is gone starts from it", req(spec.IMG023), func(ctx SpecContext) {
			s.keepsImages(ctx, "reg-keep", false)
		})
		s.gradedIt("fetches a blob once when two pods pull an image holding it at the same time", []string{spec.IMG025}, func() {
			ctx := context.Background()
			f := s.newRegistry(ctx, "reg-once")
			// A layer large enough that the two pulls overlap: an uncompressed tar, cheap to
			// build, that takes the registry a while to serve.
			_, err := fw.AddRawLayer(f.layout, fw.ProbeImageTag, "big", []fw.RawEntry{{Name: "big", Type: tar.TypeReg, Content: strings.Repeat("a layer to pull ", 4<<20)}})
			Expect(err).NotTo(HaveOccurred())
			f.push(ctx, "big", "v1")
			big := f.layers(ctx, "big")
			ref := f.ref("v1")
			m := f.mark()
			var wg sync.WaitGroup
			pods := make([]*fw.Pod, 2)
			for i := range pods {
				p, err := s.f.Prepare(fmt.Sprintf("reg-once-%d", i+1), fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", fw.Exit(0), fw.WithImage(ref), withPullPolicy(v1alpha1.PullAlways)))
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
				pods[i] = p
			}
			errs := make([]error, 2)
			for i, p := range pods {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = p.Run(ctx)
				}()
			}
			wg.Wait()
			for i, p := range pods {
				Expect(errs[i]).NotTo(HaveOccurred())
				Expect(p.Created()).To(BeTrue(), "%s", p.RunResult)
			}
			for _, p := range pods {
				waitSucceeded(ctx, p, "pod "+p.Name)
			}
			qs := f.requestsSince(m)
			// The probe's layer may be held from an earlier pull: at most one fetch. The big
			// layer is new to the runtime: exactly one.
			for _, l := range big {
				Expect(blobGets(qs, l)).To(BeNumerically("<=", 1), "layer %s: requests %v", l, qs)
			}
			Expect(blobGets(qs, big[len(big)-1])).To(Equal(1), "layer %s: requests %v", big[len(big)-1], qs)
		})
	})
	Describe("Registry images of defer containers", profileLabel(spec.ProfileDefer), func() {
		It("are kept from the pod's creation, so that defer containers run after the registry is gone", req(spec.IMG023), func(ctx SpecContext) {
			s.requireProfile(spec.ProfileDefer)
			s.keepsImages(ctx, "reg-keep-defer", true)
		})
	})
}

// keepsImages holds IMG-023: a pod of a main container whose first instance fails after the
// registry was stopped (and, withDefer, a defer container of another image of the registry)
// must still succeed, every instance starting from the images resolved at creation.
func (s *suite) keepsImages(ctx context.Context, short string, withDefer bool) {
	GinkgoHelper()
	f := s.newRegistry(ctx, short)
	f.image("main", "main")
	f.push(ctx, "main", "main")
	b := fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure).
		Main("a", fw.Exit(0).Codes("1", "0").WaitFor("go").Report().Read(whichFile), fw.WithImage(f.ref("main")), withPullPolicy(v1alpha1.PullAlways)))
	if withDefer {
		f.image("defer", "defer")
		f.push(ctx, "defer", "defer")
		b.Defer("d", fw.Exit(0).Report().Read(whichFile)).Mutate(func(p *v1alpha1.Pod) {
			p.Spec.DeferContainers[0].Image = f.ref("defer")
			p.Spec.DeferContainers[0].ImagePullPolicy = v1alpha1.PullAlways
		})
	}
	p := s.submitPod(ctx, short, b)
	Expect(p.Created()).To(BeTrue(), "%s", p.RunResult)
	f.reg.Stop()
	Expect(p.Touch("go")).To(Succeed())
	_, tl := waitSucceeded(ctx, p, "the registry stopped after the pod was created")
	Expect(tl.Restarted("a", 1)).To(Succeed())
	if withDefer {
		Expect(workloadReport(tl, "d").Files).To(HaveKeyWithValue(whichFile, "defer"), "%s", tl)
	}
}
