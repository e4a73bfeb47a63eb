package oci

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/internal/mounttest"
)

// TestCgroupHierarchiesReadsAnEscapedMountPoint binds the first cgroup hierarchy at a path that
// mountinfo escapes, in a mount namespace of the test's own, and finds it there with the same
// version and controllers.
func TestCgroupHierarchiesReadsAnEscapedMountPoint(t *testing.T) {
	before, err := CgroupHierarchies()
	if err != nil {
		t.Fatal(err)
	}
	if len(before) == 0 {
		t.Skip("no cgroup hierarchy is mounted")
	}
	orig := before[0]
	odd := filepath.Join(t.TempDir(), mounttest.OddName)
	var after []CgroupHierarchy
	mounttest.InPrivateNamespace(t, func() error {
		if err := mounttest.Bind(orig.Mountpoint, odd); err != nil {
			return err
		}
		after, err = CgroupHierarchies()
		return err
	})
	i := slices.IndexFunc(after, func(h CgroupHierarchy) bool { return h.Mountpoint == odd })
	if i < 0 {
		t.Fatalf("no hierarchy at %q in %+v", odd, after)
	}
	if got := after[i]; got.Version != orig.Version || !slices.Equal(got.Controllers, orig.Controllers) {
		t.Errorf("the bound hierarchy reads as %+v, want the version and controllers of %+v", got, orig)
	}
}

// TestCgroupHierarchiesReadsTheMountTableOnceAndAgainOnAMiss takes a v1 hierarchy away in a
// mount namespace of the test's own, lists the hierarchies there, and mounts the hierarchy again
// elsewhere: the list is not read again (the new mount point is not in it), but CgroupFile, not
// finding the controller, reads the table again and finds it at its new place.
func TestCgroupHierarchiesReadsTheMountTableOnceAndAgainOnAMiss(t *testing.T) {
	hs, err := CgroupHierarchies()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(hs, func(h CgroupHierarchy) bool { return h.Version == 1 && len(h.Controllers) > 0 })
	if i < 0 {
		t.Skip("no cgroup v1 hierarchy is mounted")
	}
	h := hs[i]
	moved := filepath.Join(t.TempDir(), "moved")
	var kept []CgroupHierarchy
	var file string
	mounttest.InPrivateNamespace(t, func() error {
		if err := unix.Unmount(h.Mountpoint, unix.MNT_DETACH); err != nil {
			return err
		}
		if _, err := CgroupHierarchies(); err != nil {
			return err
		}
		if err := os.MkdirAll(moved, 0o755); err != nil {
			return err
		}
		if err := unix.Mount("cgroup", moved, "cgroup", 0, strings.Join(h.Controllers, ",")); err != nil {
			return fmt.Errorf("mount the %v hierarchy again: %w", h.Controllers, err)
		}
		if kept, err = CgroupHierarchies(); err != nil {
			return err
		}
		file, err = CgroupFile("/podspec", h.Controllers[0], "cgroup.procs")
		return err
	})
	if slices.ContainsFunc(kept, func(k CgroupHierarchy) bool { return k.Mountpoint == moved }) {
		t.Errorf("the second list has the hierarchy mounted after the first: the mount table was read again (%+v)", kept)
	}
	if want := filepath.Join(moved, "podspec", "cgroup.procs"); file != want {
		t.Errorf("CgroupFile after the controller moved = %q, want %q", file, want)
	}
}

// BenchmarkCgroupFile compares a cgroup file's lookup from the hierarchies kept with one that
// reads the mount table each time, as every lookup did before: the second grows with the table,
// a few entries a pod (go test -run - -bench CgroupFile ./reference/oci/ on a host with pods).
func BenchmarkCgroupFile(b *testing.B) {
	b.Run("kept", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := CgroupFile("/podspec", "", "cgroup.procs"); err != nil {
				b.Skip(err)
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := readCgroupHierarchies(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
