package oci

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
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

// CgroupHierarchies lists every cgroup hierarchy mounted in this mount namespace (from
// /proc/self/mountinfo): on a hybrid host, each v1 controller hierarchy and the unified one.
func CgroupHierarchies() ([]CgroupHierarchy, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("list cgroup hierarchies: %w", err)
	}
	defer f.Close()
	var out []CgroupHierarchy
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superopts
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(qf) < 3 {
			continue
		}
		mp := unescapeMount(pf[4])
		if seen[mp] {
			continue
		}
		switch qf[0] {
		case "cgroup2":
			seen[mp] = true
			out = append(out, CgroupHierarchy{Mountpoint: mp, Version: 2})
		case "cgroup":
			seen[mp] = true
			var ctrls []string
			for _, o := range strings.Split(qf[2], ",") {
				switch o {
				case "rw", "ro", "relatime", "noexec", "nosuid", "nodev", "clone_children", "noprefix", "xattr":
					continue
				}
				ctrls = append(ctrls, o)
			}
			out = append(out, CgroupHierarchy{Mountpoint: mp, Version: 1, Controllers: ctrls})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("list cgroup hierarchies: %w", err)
	}
	return out, nil
}

// unescapeMount undoes the octal escapes (\040 for space, ...) of mountinfo fields.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%03o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
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
