package suites

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	"podspec.dev/podspec/spec"
)

// registerStateRoot declares the specs of what a runtime requires of its state root (SUP-011,
// SUP-012), through the contract's global `--root` flag (the last one wins): a root another user
// owns is refused, naming it, and nothing is written in it; a root of the runtime's own user that
// group and others may write loses that permission when the runtime uses it. The runtime's user
// is the harness's (the harness runs the runtime's command); giving a directory to another user
// needs root.
func (s *suite) registerStateRoot() {
	Describe("The state root", func() {
		It("is refused, naming it, when another user owns it, and nothing is written in it", req(spec.SUP011), func(ctx SpecContext) {
			requireRoot("give a directory to another user", spec.SUP011+" is")
			dir, err := os.MkdirTemp("", "podspec-conformance-root-")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { Expect(os.RemoveAll(dir)).To(Succeed()) })
			root := filepath.Join(dir, "root")
			Expect(os.Mkdir(root, 0o755)).To(Succeed())
			Expect(os.Chown(root, 65534, 65534)).To(Succeed())
			res, err := s.f.RT.WithRoot(root).Exec(ctx, "list")
			Expect(err).NotTo(HaveOccurred())
			Expect(res.ExitCode).NotTo(BeZero(), "list in a state root owned by uid 65534 succeeded\n%s", res)
			Expect(res.Error).NotTo(BeNil(), "the refusal has an error report\n%s", res)
			Expect(res.Error.Message).To(ContainSubstring(root), "the error names the root\n%s", res)
			Expect(res.Error.Message).To(ContainSubstring("65534"), "the error names the root's owner\n%s", res)
			ents, err := os.ReadDir(root)
			Expect(err).NotTo(HaveOccurred())
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			Expect(names).To(BeEmpty(), "the runtime wrote in the refused root: %s", strings.Join(names, ", "))
		})
		It("loses group and other write permission when the runtime uses it", req(spec.SUP012), func(ctx SpecContext) {
			dir, err := os.MkdirTemp("", "podspec-conformance-root-")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { Expect(os.RemoveAll(dir)).To(Succeed()) })
			root := filepath.Join(dir, "root")
			Expect(os.Mkdir(root, 0o700)).To(Succeed())
			Expect(os.Chmod(root, 0o777)).To(Succeed())
			res, err := s.f.RT.WithRoot(root).Exec(ctx, "list")
			Expect(err).NotTo(HaveOccurred())
			Expect(res.ExitCode).To(BeZero(), "list in the harness's own state root\n%s", res)
			fi, err := os.Stat(root)
			Expect(err).NotTo(HaveOccurred())
			Expect(fi.Mode().Perm()&0o022).To(BeZero(), "the state root is still %v after the runtime used it", fi.Mode().Perm())
		})
	})
}
