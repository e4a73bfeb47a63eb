package oci

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/moby/sys/mountinfo"
)

// CgroupHierarchy is one mounted cgroup hierarchy.
type CgroupHierarchy struct {
	// Mountpoint is where the hierarchy is mounted (e.g. /sys/fs/cgroup/memory).
	Mountpoint string
	// Version is 1 or 2.
	Version int
	// Controllers are the v1 controllers (or name=...) of the hierarchy; empty for v2.
	Controllers []string
}

// CgroupHierarchies lists every cgroup hierarchy mounted in this mount namespace (from its
// mountinfo, read by github.com/moby/sys/mountinfo): on a hybrid host, each v1 controller
// hierarchy and the unified one.
func CgroupHierarchies() ([]CgroupHierarchy, error) {
	mounts, err := mountinfo.GetMounts(mountinfo.FSTypeFilter("cgroup", "cgroup2"))
	if err != nil {
		return nil, fmt.Errorf("list cgroup hierarchies: %w", err)
	}
	var out []CgroupHierarchy
	seen := map[string]bool{}
	for _, m := range mounts {
		mp := m.Mountpoint
		if seen[mp] {
			continue
		}
		seen[mp] = true
		switch m.FSType {
		case "cgroup2":
			out = append(out, CgroupHierarchy{Mountpoint: mp, Version: 2})
		case "cgroup":
			var ctrls []string
			for _, o := range strings.Split(m.VFSOptions, ",") {
				switch o {
				case "rw", "ro", "relatime", "noexec", "nosuid", "nodev", "clone_children", "noprefix", "xattr":
					continue
				}
				ctrls = append(ctrls, o)
			}
			out = append(out, CgroupHierarchy{Mountpoint: mp, Version: 1, Controllers: ctrls})
		}
	}
	return out, nil
}

// CgroupFile returns the host path of a cgroup file of the cgroup at cgroupsPath (as in
// ContainerConfig.CgroupsPath) for a v1 controller (e.g. "memory", "memory.limit_in_bytes"),
// or in the unified hierarchy when controller is "" (e.g. "", "memory.max").
func CgroupFile(cgroupsPath, controller, file string) (string, error) {
	hs, err := CgroupHierarchies()
	if err != nil {
		return "", err
	}
	for _, h := range hs {
		if controller == "" && h.Version == 2 {
			return filepath.Join(h.Mountpoint, cgroupsPath, file), nil
		}
		for _, c := range h.Controllers {
			if c == controller {
				return filepath.Join(h.Mountpoint, cgroupsPath, file), nil
			}
		}
	}
	return "", fmt.Errorf("cgroup controller %q is not mounted", controller)
}

// RemoveCgroup removes the cgroup directory cgroupsPath (e.g. /podspec/<pod-uid>) and every
// cgroup below it, deepest first, in every mounted hierarchy (all v1 hierarchies and the
// unified one). Missing directories are not an error, so it is idempotent. A cgroup that
// still has processes cannot be removed (EBUSY) and is reported. The hierarchy roots
// themselves are never removed.
func RemoveCgroup(cgroupsPath string) error {
	clean := filepath.Clean("/" + cgroupsPath)
	if clean == "/" {
		return fmt.Errorf("remove cgroup %q: refusing to remove a hierarchy root", cgroupsPath)
	}
	hs, err := CgroupHierarchies()
	if err != nil {
		return err
	}
	var errs []error
	for _, h := range hs {
		top := filepath.Join(h.Mountpoint, clean)
		var dirs []string
		werr := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		if werr != nil {
			errs = append(errs, fmt.Errorf("remove cgroup %s: %w", top, werr))
			continue
		}
		sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
		for _, d := range dirs {
			if err := syscall.Rmdir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("remove cgroup %s: %w", d, err))
			}
		}
	}
	return errors.Join(errs...)
}
