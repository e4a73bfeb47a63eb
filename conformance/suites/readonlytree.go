package suites

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL
	"golang.org/x/sys/unix"

	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/spec"
)

// registerReadOnlyTree declares VOL-009's recursive clause: a hostPath directory with a tmpfs
// mounted below it, mounted readOnly in a container, is read-only all the way down. The
// container reads a file on the submount (so the check is not vacuous), tries to overwrite it
// and reports its mounts; the host's file must be unchanged and every mount at or below the
// volume's mount path read-only. The harness
// mounts the tmpfs itself, so it must run as root.
func (s *suite) registerReadOnlyTree() {
	const short = "read-only-tree"
	Describe("A read-only volume with a mount below its source", func() {
		It("is read-only all the way down: the submount is read-only and a write does not reach the host", req(spec.VOL009), func(ctx SpecContext) {
			requireRoot("mount a tmpfs below the hostPath directory", spec.VOL009+"'s recursive clause is")
			dir, err := os.MkdirTemp("", "podspec-conformance-"+short+"-")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { Expect(os.RemoveAll(dir)).To(Succeed()) })
			sub := filepath.Join(dir, "sub")
			Expect(os.Mkdir(sub, 0o755)).To(Succeed())
			Expect(unix.Mount("podspec-conformance", sub, "tmpfs", 0, "size=1m,mode=0777")).To(Succeed())
			DeferCleanup(func() { Expect(unix.Unmount(sub, unix.MNT_DETACH)).To(Succeed()) })
			file := filepath.Join(sub, "f")
			Expect(os.WriteFile(file, []byte("host"), 0o666)).To(Succeed())

			tl := s.runToEnd(ctx, short, fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).HostPath("tree", dir).
				Main("app", fw.Exit(0).Read("/tree/sub/f").Write("/tree/sub/f", "container").Report(), fw.WithMount("tree", "/tree", true)))
			rep := workloadReport(tl, "app")
			var below []string
			for _, m := range rep.Mounts {
				if m.Path == "/tree" || strings.HasPrefix(m.Path, "/tree/") {
					below = append(below, fmt.Sprintf("%s (%s, read-only %v)", m.Path, m.FSType, m.ReadOnly))
					Expect(m.ReadOnly).To(BeTrue(), "%s is writable in the container, below the read-only volume at /tree", m.Path)
				}
			}
			// Not vacuous: the container reached the file on the submount (as a mount of its own,
			// or, in a sandbox kernel, through the one filesystem of the volume).
			Expect(rep.Files).To(HaveKeyWithValue("/tree/sub/f", "host"), "the container reads the host's file on the submount (mounts at or below /tree: %v; errors %v)", below, rep.FileErrors)
			got, err := os.ReadFile(file)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal("host"), "the container wrote through the read-only volume to the host's %s", file)
		})
	})
}
