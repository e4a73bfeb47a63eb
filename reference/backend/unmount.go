package backend

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"
)

// errScan is why unmountUnder falls back to reading the mount table: a path below the directory
// that cannot be examined, or a kernel that does not say which files are mount points.
var errScan = errors.New("a mount point cannot be told by its path")

// unmountUnder unmounts every mount point at or below dir, the directory itself included. It
// walks dir's own tree and unmounts each mount point it meets (statx's STATX_ATTR_MOUNT_ROOT,
// Linux 5.8), before it descends into the directory that was below, so its cost is the size of
// the tree, not of the host's mount table: the table holds a few entries a pod, and reading it
// on each removal made a removal cost in proportion to the number of pods (issue 31). A mount is
// detached with its own submounts (MNT_DETACH), so what was mounted inside it is gone with it;
// one stacked on another at the same path is unmounted in turn. When a path cannot be examined
// (a dead FUSE mount, say) or the kernel does not report mount points, it reads the mount table
// instead (unmountUnderByScan), so nothing is left mounted either way.
func unmountUnder(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	var errs []error
	werr := filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // gone while walking, or no directory at all
		}
		if err != nil {
			return errScan
		}
		for {
			root, err := isMountRoot(path)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			if !root {
				return nil
			}
			if err := unix.Unmount(path, unix.MNT_DETACH); err != nil {
				if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOENT) {
					return nil
				}
				// Not descended into: what is below is the mount's, not the pod's.
				errs = append(errs, fmt.Errorf("unmount %s: %w", path, err))
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
		}
	})
	if errors.Is(werr, errScan) {
		return unmountUnderByScan(abs)
	}
	if werr != nil {
		errs = append(errs, werr)
	}
	return errors.Join(errs...)
}

// isMountRoot reports whether path (not followed if a symbolic link) is the root of a mount.
func isMountRoot(path string) (bool, error) {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW|unix.AT_NO_AUTOMOUNT, 0, &st)
	if errors.Is(err, unix.ENOENT) {
		return false, fs.ErrNotExist
	}
	if err != nil || st.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT == 0 {
		return false, errScan
	}
	return st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0, nil
}

// unmountUnderByScan unmounts every mount point at or below dir, deepest first, from the mount
// table (github.com/moby/sys/mountinfo, which undoes the table's escapes). A mount hidden below
// another (mounted first, then covered) can only be unmounted once the cover is gone, so it
// reads the table again after each pass that unmounted something.
func unmountUnderByScan(dir string) error {
	for {
		mounts, err := mountinfo.GetMounts(mountinfo.PrefixFilter(dir))
		if err != nil {
			return fmt.Errorf("list mounts: %w", err)
		}
		mps := make([]string, 0, len(mounts))
		for _, m := range mounts {
			mps = append(mps, m.Mountpoint)
		}
		sort.Slice(mps, func(i, j int) bool { return len(mps[i]) > len(mps[j]) })
		var errs []error
		unmounted := false
		for _, mp := range mps {
			err := unix.Unmount(mp, unix.MNT_DETACH)
			switch {
			case err == nil:
				unmounted = true
			case !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT):
				errs = append(errs, fmt.Errorf("unmount %s: %w", mp, err))
			}
		}
		if !unmounted || len(errs) > 0 {
			return errors.Join(errs...)
		}
	}
}
