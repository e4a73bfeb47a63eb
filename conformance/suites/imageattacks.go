package suites

import (
	"archive/tar"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// hostileLayer is one attack an image layer can carry against the host it is unpacked on.
type hostileLayer struct {
	tag     string
	entries func(canary string) []fw.RawEntry
}

// victimContent is what the harness's victim file holds; no layer may change it.
const victimContent = "the harness's file\n"

// hostileLayers target a canary directory the harness owns (outside every root filesystem),
// where a victim file waits: `..` names, absolute names, writes through symbolic links (absolute
// and relative), and hard links to the victim followed by a write through them.
func hostileLayers() []hostileLayer {
	reg := func(name, content string) fw.RawEntry {
		return fw.RawEntry{Name: name, Type: tar.TypeReg, Content: content}
	}
	return []hostileLayer{
		{"dotdot", func(c string) []fw.RawEntry { return []fw.RawEntry{reg(climbTo(c)+"/dotdot", "escaped")} }},
		{"absolute", func(c string) []fw.RawEntry { return []fw.RawEntry{reg(c+"/absolute", "escaped")} }},
		{"symlink-absolute", func(c string) []fw.RawEntry {
			return []fw.RawEntry{{Name: "esc", Type: tar.TypeSymlink, Linkname: c}, reg("esc/through-absolute-link", "escaped")}
		}},
		{"symlink-relative", func(c string) []fw.RawEntry {
			return []fw.RawEntry{{Name: "up", Type: tar.TypeSymlink, Linkname: strings.Repeat("../", 64)},
				reg("up/"+strings.TrimPrefix(c, "/")+"/through-relative-link", "escaped")}
		}},
		{"symlink-overwrite", func(c string) []fw.RawEntry {
			return []fw.RawEntry{{Name: "victim-link", Type: tar.TypeSymlink, Linkname: c + "/victim"}, reg("victim-link", "overwritten")}
		}},
		{"hardlink-absolute", func(c string) []fw.RawEntry {
			return []fw.RawEntry{{Name: "hard", Type: tar.TypeLink, Linkname: c + "/victim"}, reg("hard", "overwritten")}
		}},
		{"hardlink-dotdot", func(c string) []fw.RawEntry {
			return []fw.RawEntry{{Name: "hard", Type: tar.TypeLink, Linkname: climbTo(c) + "/victim"}, reg("hard", "overwritten")}
		}},
		{"hardlink-through-symlink", func(c string) []fw.RawEntry {
			return []fw.RawEntry{{Name: "esc", Type: tar.TypeSymlink, Linkname: c},
				{Name: "hard", Type: tar.TypeLink, Linkname: "esc/victim"}, reg("hard", "overwritten")}
		}},
	}
}

// expectCanaryUntouched fails unless the canary directory holds only the victim, unchanged and
// with no other link to it.
func expectCanaryUntouched(canary, when string) {
	entries, err := os.ReadDir(canary)
	Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	Expect(names).To(Equal([]string{"victim"}), "%s: unpacking created files in %s", when, canary)
	victim := filepath.Join(canary, "victim")
	data, err := os.ReadFile(victim)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(data)).To(Equal(victimContent), "%s: unpacking changed %s", when, victim)
	fi, err := os.Lstat(victim)
	Expect(err).NotTo(HaveOccurred())
	Expect(fi.Sys().(*syscall.Stat_t).Nlink).To(BeEquivalentTo(1), "%s: unpacking made a hard link to %s", when, victim)
}

func (s *suite) registerImageAttacks() {
	Describe("Hostile image layers", Ordered, ContinueOnFailure, profileLabel("core"), func() {
		var layout, canary string
		BeforeAll(func(ctx SpecContext) {
			work := s.f.Config().WorkDir
			layout, canary = filepath.Join(work, "image-hostile"), filepath.Join(work, "image-hostile-canary")
			_, err := fw.BuildProbeImage(ctx, layout, s.f.Config().ProbeBinary, "")
			Expect(err).NotTo(HaveOccurred())
			Expect(os.MkdirAll(canary, 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(canary, "victim"), []byte(victimContent), 0o644)).To(Succeed())
		})
		var entries []TableEntry
		for _, h := range hostileLayers() {
			entries = append(entries, Entry(h.tag, h))
		}
		DescribeTable("unpacks nothing outside the instance's root filesystem, or refuses the image", req(spec.IMG010),
			func(ctx SpecContext, h hostileLayer) {
				ref, err := fw.AddRawLayer(layout, fw.ProbeImageTag, h.tag, h.entries(canary))
				Expect(err).NotTo(HaveOccurred())
				p, err := s.f.Submit(ctx, "image-"+h.tag, fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", fw.Loop()).Mutate(func(p *v1alpha1.Pod) {
					p.Spec.Containers[0].Image = ref
				}))
				DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
				Expect(err).NotTo(HaveOccurred())
				if !p.Created() {
					// Refusing the image satisfies the requirement, with an error naming it.
					Expect(p.RunResult.ExitCode).To(Equal(runtimev1.ExitFailed), "%s", p.RunResult)
					Expect(p.RunResult.Error).NotTo(BeNil(), "%s", p.RunResult)
					expectCanaryUntouched(canary, "after the runtime refused the image")
					return
				}
				// Accepted: the layer was neutralised. Look once the instance exists with its root
				// filesystem (a hard link lives as long as that), and again after the pod ended.
				_, err = p.WaitFor(ctx, "a to be created or the pod to end", p.PodTimeout(), func(tl *fw.Timeline) bool {
					_, created := tl.First(fw.RuntimeEv(runtimev1.EventContainerCreated, "a"))
					_, ended := tl.First(fw.RuntimeEv(runtimev1.EventPodFinished, ""))
					return created || ended
				})
				Expect(err).NotTo(HaveOccurred())
				expectCanaryUntouched(canary, "while the pod runs")
				Expect(p.Stop(ctx, nil, true)).To(Succeed())
				_, err = p.Wait(ctx)
				Expect(err).NotTo(HaveOccurred())
				expectCanaryUntouched(canary, "after the pod ended")
			}, entries)
	})

	Describe("Image content after the layout changed", profileLabel("core"), func() {
		It("starts a restarted instance from the content resolved when the pod was created", req(spec.IMG004), func(ctx SpecContext) {
			dir := filepath.Join(s.f.Config().WorkDir, "image-rewritten")
			build := func(ctx context.Context, content string) string {
				ref, err := fw.BuildProbeImageWithFiles(ctx, dir, s.f.Config().ProbeBinary, fw.ProbeImageTag, map[string]string{"/img004": content})
				Expect(err).NotTo(HaveOccurred())
				return ref
			}
			ref := build(ctx, "original")
			// Instance 1 reports the file, waits until the layout was rewritten and fails;
			// instance 2 reports the file again and succeeds.
			pod := fastBackoff(fw.NewPod()).RestartPolicy(v1alpha1.RestartPolicyOnFailure).
				Main("a", fw.Exit(0).Codes("1", "0").WaitFor("rewritten").Report().Read("/img004")).
				Mutate(func(p *v1alpha1.Pod) { p.Spec.Containers[0].Image = ref })
			p, err := s.f.Start(ctx, "image-rewritten", pod)
			DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
			Expect(err).NotTo(HaveOccurred())
			_, err = p.WaitFor(ctx, "a's first report", p.PodTimeout(), func(tl *fw.Timeline) bool {
				return len(tl.All(fw.ProbeEvent("a", probe.TypeReport))) > 0
			})
			Expect(err).NotTo(HaveOccurred())
			// The same tag, a new layout: the old blobs are gone, the new image differs.
			Expect(os.RemoveAll(dir)).To(Succeed())
			build(ctx, "changed")
			Expect(p.Touch("rewritten")).To(Succeed())
			final, err := p.Wait(ctx)
			Expect(err).NotTo(HaveOccurred())
			tl, err := p.Timeline(ctx)
			Expect(err).NotTo(HaveOccurred())
			reports := tl.All(fw.ProbeEvent("a", probe.TypeReport))
			Expect(reports).To(HaveLen(2), "two instances report\n%s", tl)
			for _, r := range reports {
				Expect(r.Probe.Report.Files).To(HaveKeyWithValue("/img004", "original"), "instance %d reads the image resolved at creation (errors %v)\n%s", r.Probe.Instance, r.Probe.Report.FileErrors, tl)
			}
			Expect(final.Phase).To(Equal(v1alpha1.PodSucceeded), "%s", final)
		})
	})

	Describe("Image file metadata", profileLabel("core"), func() {
		It("gives every file of the root filesystem its layer's mode, owner and time", req(spec.IMG014), func(ctx SpecContext) {
			layout := filepath.Join(s.f.Config().WorkDir, "image-modes")
			_, err := fw.BuildProbeImage(ctx, layout, s.f.Config().ProbeBinary, "")
			Expect(err).NotTo(HaveOccurred())
			at := func(s int64) time.Time { return time.Unix(1_600_000_000+s, 0) }
			// Modes a usual umask (022, 077) changes when the unpacker leaves them to it.
			entries := []fw.RawEntry{
				{Name: "img014/", Type: tar.TypeDir, Mode: 0o2775, UID: 11, GID: 12, ModTime: at(1)},
				{Name: "img014/setuid", Type: tar.TypeReg, Content: "x", Mode: 0o4755, UID: 13, GID: 14, ModTime: at(2)},
				{Name: "img014/shared", Type: tar.TypeReg, Content: "x", Mode: 0o666, UID: 15, GID: 16, ModTime: at(3)},
				{Name: "img014/fifo", Type: tar.TypeFifo, Mode: 0o666, UID: 17, GID: 18, ModTime: at(4)},
				{Name: "img014/link", Type: tar.TypeSymlink, Linkname: "setuid", UID: 19, GID: 20, ModTime: at(5)},
			}
			ref, err := fw.AddRawLayer(layout, fw.ProbeImageTag, "modes", entries)
			Expect(err).NotTo(HaveOccurred())
			w := fw.Exit(0).Report()
			for _, e := range entries {
				w = w.Stat("/" + strings.TrimSuffix(e.Name, "/"))
			}
			tl := s.runToEnd(ctx, "image-modes", fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", w, fw.WithImage(ref)))
			stats := workloadReport(tl, "a").Stats
			types := map[byte]uint32{tar.TypeDir: syscall.S_IFDIR, tar.TypeReg: syscall.S_IFREG, tar.TypeFifo: syscall.S_IFIFO, tar.TypeSymlink: syscall.S_IFLNK}
			for _, e := range entries {
				path := "/" + strings.TrimSuffix(e.Name, "/")
				mode := e.Mode
				if e.Type == tar.TypeSymlink {
					mode = 0o777
				}
				want := probe.FileStat{Mode: types[e.Type] | uint32(mode), UID: uint32(e.UID), GID: uint32(e.GID), Mtime: e.ModTime.Unix()}
				Expect(stats).To(HaveKeyWithValue(path, want), "%s (mode %o) is not as its layer made it (mode %o): the unpacker's umask or its own times got in", path, stats[path].Mode, want.Mode)
			}
		})
	})
}
