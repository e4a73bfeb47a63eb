package backend

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"

	"podspec.dev/podspec/internal/mounttest"
)

// unmounters are the two ways of unmounting below a directory: by walking it (unmountUnder) and
// by the mount table (unmountUnderByScan, its fallback); each must leave the same.
var unmounters = map[string]func(string) error{"walk": unmountUnder, "scan": unmountUnderByScan}

// mountedUnder lists the mount points at or below dir in the calling thread's mount table.
func mountedUnder(dir string) ([]string, error) {
	mounts, err := mountinfo.GetMounts(mountinfo.PrefixFilter(dir))
	var out []string
	for _, m := range mounts {
		out = append(out, m.Mountpoint)
	}
	return out, err
}

// TestUnmountUnderUnmountsEscapedMountPoints mounts a tmpfs at a path that mountinfo escapes, a
// second one inside it, and a third beside it whose name only begins with the first's; it
// unmounts the first two and leaves the third.
func TestUnmountUnderUnmountsEscapedMountPoints(t *testing.T) {
	for name, unmount := range unmounters {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var left []string
			var sibling string
			mounttest.InPrivateNamespace(t, func() error {
				outer, err := mounttest.Tmpfs("outer", dir, mounttest.OddName)
				if err != nil {
					return err
				}
				if _, err := mounttest.Tmpfs("inner", outer, "in "+mounttest.OddName); err != nil {
					return err
				}
				if sibling, err = mounttest.Tmpfs("sibling", dir, mounttest.OddName+"x"); err != nil {
					return err
				}
				if err := unmount(outer); err != nil {
					return err
				}
				left, err = mountedUnder(dir)
				return err
			})
			if !slices.Equal(left, []string{sibling}) {
				t.Fatalf("mounted under %s after unmounting: %q, want only %q", filepath.Base(dir), left, sibling)
			}
		})
	}
}

// TestUnmountUnderLeavesNothingMounted builds what a pod directory may hold: a file bound on a
// file (as the pinned namespaces are), two mounts stacked on one directory, a mount deep in the
// tree with one inside it, and one hidden below another mount (made first, then covered);
// nothing of it is left mounted. (The directory itself a mount point is
// TestUnmountUnderUnmountsEscapedMountPoints's.)
func TestUnmountUnderLeavesNothingMounted(t *testing.T) {
	for name, unmount := range unmounters {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "pod")
			var left []string
			mounttest.InPrivateNamespace(t, func() error {
				file := filepath.Join(dir, "ns", "net")
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(file, nil, 0o644); err != nil {
					return err
				}
				if err := unix.Mount("/proc/self/status", file, "", unix.MS_BIND, ""); err != nil {
					return err
				}
				for _, n := range []string{"first", "second"} {
					if _, err := mounttest.Tmpfs(n, dir, "stacked"); err != nil {
						return err
					}
				}
				deep, err := mounttest.Tmpfs("deep", dir, "a/b/c")
				if err != nil {
					return err
				}
				if _, err := mounttest.Tmpfs("inside", deep, "d"); err != nil {
					return err
				}
				if _, err := mounttest.Tmpfs("hidden", dir, "cover/hidden"); err != nil {
					return err
				}
				if _, err := mounttest.Tmpfs("cover", dir, "cover"); err != nil {
					return err
				}
				if err := unmount(dir); err != nil {
					return err
				}
				left, err = mountedUnder(dir)
				return err
			})
			if len(left) > 0 {
				t.Fatalf("still mounted after unmounting %s: %q", dir, left)
			}
		})
	}
}

// BenchmarkUnmountUnder compares the walk of a directory of a few files, with nothing mounted
// below it, with the mount table's scan: the second grows with the host's table, a few entries
// a pod (go test -run - -bench UnmountUnder ./reference/backend/ on a host with pods).
func BenchmarkUnmountUnder(b *testing.B) {
	dir := b.TempDir()
	for _, f := range []string{"config.json", "rootfs/bin/sh", "rootfs/etc/hosts", "log/0.log"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, name := range []string{"walk", "scan"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := unmounters[name](dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
