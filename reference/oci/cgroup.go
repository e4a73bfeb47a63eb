package oci

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"
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

// CgroupHierarchies lists every cgroup hierarchy mounted in the calling thread's mount
// namespace, once each, at its first mount point in the mount table: on a hybrid host, each v1
// controller hierarchy and the unified one. It reads the
// namespace's mountinfo (github.com/moby/sys/mountinfo) once and keeps the list for as long as
// the thread is in that namespace: the hierarchies do not change while the runtime runs, and the
// mount table holds a few entries a pod, so reading it on every cgroup operation made each one
// cost in proportion to the number of pods (82 % of the supervisors' CPU during removal at 1,000
// pods, issue 31). A thread that changes namespace (setns, unshare) gets its new namespace's
// list; a controller missing from the list is looked for again (CgroupFile).
func CgroupHierarchies() ([]CgroupHierarchy, error) {
	hs, err := cgroupHierarchies(false)
	return slices.Clone(hs), err
}

// hierarchies is the cgroup hierarchies last read, and the mount namespace they were read in.
var hierarchies struct {
	sync.Mutex
	ns   mountNamespace
	list []CgroupHierarchy
}

// mountNamespace identifies a mount namespace: its nsfs file's device and inode.
type mountNamespace struct{ dev, ino uint64 }

// cgroupHierarchies returns the hierarchies kept for the calling thread's mount namespace,
// reading them when none are kept for it or when reread is set.
func cgroupHierarchies(reread bool) ([]CgroupHierarchy, error) {
	// The thread is pinned while it names its namespace and reads the table, so both are the
	// same thread's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var st unix.Stat_t
	if err := unix.Stat("/proc/thread-self/ns/mnt", &st); err != nil {
		return nil, fmt.Errorf("list cgroup hierarchies: the mount namespace: %w", err)
	}
	ns := mountNamespace{dev: st.Dev, ino: st.Ino}
	hierarchies.Lock()
	defer hierarchies.Unlock()
	if !reread && hierarchies.list != nil && hierarchies.ns == ns {
		return hierarchies.list, nil
	}
	list, err := readCgroupHierarchies()
	if err != nil {
		return nil, err
	}
	hierarchies.ns, hierarchies.list = ns, list
	return list, nil
}

// readCgroupHierarchies reads the cgroup hierarchies from the calling thread's mountinfo, up
// to the last of the hierarchies this process is a member of (cgroupMemberships).
func readCgroupHierarchies() ([]CgroupHierarchy, error) {
	f, err := os.Open("/proc/thread-self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("list cgroup hierarchies: %w", err)
	}
	defer f.Close()
	return parseCgroupHierarchies(f, cgroupMemberships())
}

// cgroupMemberships returns the hierarchies /proc/self/cgroup lists (cgroupKey of each), or nil
// when it cannot be read.
func cgroupMemberships() map[string]bool {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	return parseCgroupMemberships(string(b))
}

// parseCgroupMemberships reads the lines of a /proc/PID/cgroup file (ID:CONTROLLERS:PATH; an
// empty CONTROLLERS is the unified hierarchy) into a set of cgroupKey.
func parseCgroupMemberships(text string) map[string]bool {
	want := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			want[cgroupKey(2, nil)] = true
		} else {
			want[cgroupKey(1, strings.Split(parts[1], ","))] = true
		}
	}
	return want
}

// cgroupKey names a hierarchy by its version and its v1 controllers (in any order).
func cgroupKey(version int, controllers []string) string {
	if version == 2 {
		return "unified"
	}
	c := slices.Clone(controllers)
	slices.Sort(c)
	return strings.Join(c, ",")
}

// parseCgroupHierarchies reads the cgroup hierarchies from a mountinfo text
// (github.com/moby/sys/mountinfo). It stops after the entry that mounts the last hierarchy of
// want: the hierarchies are mounted at boot, before anything of a pod, and the runtime adds a
// few entries a pod to the table, so reading all of it made the first cgroup operation of each
// process (the supervisor's, each `rm`'s) cost in proportion to the number of pods (half of the
// supervisors' and removals' CPU at 1,000 pods, issue 31). A hierarchy of want that is not
// mounted, or an empty want, means reading the whole table.
func parseCgroupHierarchies(r io.Reader, want map[string]bool) ([]CgroupHierarchy, error) {
	missing := maps.Clone(want)
	mounts, err := mountinfo.GetMountsFromReader(r, func(m *mountinfo.Info) (skip, stop bool) {
		if m.FSType != "cgroup" && m.FSType != "cgroup2" {
			return true, false
		}
		if m.FSType == "cgroup2" {
			delete(missing, cgroupKey(2, nil))
		} else {
			delete(missing, cgroupKey(1, v1Controllers(m.VFSOptions)))
		}
		return false, len(want) > 0 && len(missing) == 0
	})
	if err != nil {
		return nil, fmt.Errorf("list cgroup hierarchies: %w", err)
	}
	out := []CgroupHierarchy{}
	seen := map[string]bool{}
	for _, m := range mounts {
		h := CgroupHierarchy{Mountpoint: m.Mountpoint, Version: 2}
		if m.FSType == "cgroup" {
			h.Version, h.Controllers = 1, v1Controllers(m.VFSOptions)
		}
		if k := cgroupKey(h.Version, h.Controllers); !seen[k] {
			seen[k] = true
			out = append(out, h)
		}
	}
	return out, nil
}

// v1Controllers are the controllers (and name=...) among a v1 cgroup mount's options.
func v1Controllers(vfsOptions string) []string {
	var ctrls []string
	for _, o := range strings.Split(vfsOptions, ",") {
		switch o {
		case "rw", "ro", "relatime", "noexec", "nosuid", "nodev", "clone_children", "noprefix", "xattr":
			continue
		}
		ctrls = append(ctrls, o)
	}
	return ctrls
}

// CgroupFile returns the host path of a cgroup file of the cgroup at cgroupsPath (as in
// ContainerConfig.CgroupsPath) for a v1 controller (e.g. "memory", "memory.limit_in_bytes"),
// or in the unified hierarchy when controller is "" (e.g. "", "memory.max").
// A controller missing from the hierarchies kept (CgroupHierarchies) is looked for again in the
// mount table, so one mounted since is found.
func CgroupFile(cgroupsPath, controller, file string) (string, error) {
	for _, reread := range []bool{false, true} {
		hs, err := cgroupHierarchies(reread)
		if err != nil {
			return "", err
		}
		if mp, ok := controllerMountpoint(hs, controller); ok {
			return filepath.Join(mp, cgroupsPath, file), nil
		}
	}
	return "", fmt.Errorf("cgroup controller %q is not mounted", controller)
}

// controllerMountpoint returns where controller is mounted among hs: the unified hierarchy for "".
func controllerMountpoint(hs []CgroupHierarchy, controller string) (string, bool) {
	for _, h := range hs {
		if controller == "" && h.Version == 2 {
			return h.Mountpoint, true
		}
		if slices.Contains(h.Controllers, controller) {
			return h.Mountpoint, true
		}
	}
	return "", false
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
