package oci

import (
	"path/filepath"
	"slices"
	"testing"

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
