package backend

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/moby/sys/mountinfo"

	"podspec.dev/podspec/internal/mounttest"
)

// TestUnmountUnderUnmountsEscapedMountPoints mounts a tmpfs at a path that mountinfo escapes, a
// second one inside it, and a third beside it whose name only begins with the first's; it
// unmounts the first two, deepest first, and leaves the third.
func TestUnmountUnderUnmountsEscapedMountPoints(t *testing.T) {
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
		if err := unmountUnder(outer); err != nil {
			return err
		}
		mounts, err := mountinfo.GetMounts(mountinfo.PrefixFilter(dir))
		for _, m := range mounts {
			left = append(left, m.Mountpoint)
		}
		return err
	})
	if !slices.Equal(left, []string{sibling}) {
		t.Fatalf("mounted under %s after unmountUnder: %q, want only %q", filepath.Base(dir), left, sibling)
	}
}
