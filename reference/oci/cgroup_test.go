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

// TestCgroupHierarchiesReadsAnEscapedMountPoint mounts the first cgroup hierarchy at a path
// that mountinfo escapes instead of its own, in a mount namespace of the test's own, and finds it
// there with the same version and controllers.
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
		if err := os.MkdirAll(odd, 0o755); err != nil {
			return err
		}
		fstype, opts := "cgroup2", ""
		if orig.Version == 1 {
			fstype, opts = "cgroup", strings.Join(orig.Controllers, ",")
		}
		if err := unix.Unmount(orig.Mountpoint, unix.MNT_DETACH); err != nil {
			return err
		}
		if err := unix.Mount(fstype, odd, fstype, 0, opts); err != nil {
			return fmt.Errorf("mount the %s hierarchy %v at %q: %w", fstype, orig.Controllers, odd, err)
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

// countingReader counts the bytes read through it.
type countingReader struct {
	r strings.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestCgroupHierarchiesStopAtTheLastOneMounted: the cgroup hierarchies are read from the
// mount table only up to the last of those the process is a member of, so the read does not grow
// with the entries pods add after them (issue 31: 4,000 entries at 1,000 pods, whose reading was
// half the supervisors' and the removals' CPU); a hierarchy not mounted, or one mounted after the
// pods' entries, still makes it read on.
func TestCgroupHierarchiesStopAtTheLastOneMounted(t *testing.T) {
	const memberships = "4:name=systemd:/\n3:memory:/x\n2:cpu,cpuacct:/\n1:pids:/\n0::/\n"
	cgroups := []string{
		"30 22 0:27 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw",
		"31 22 0:28 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd",
		"32 22 0:29 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory",
		"33 22 0:30 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpuacct,cpu",
		"34 22 0:31 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids",
	}
	head := "21 1 8:1 / / rw - ext4 /dev/sda1 rw\n22 21 0:20 / /sys rw - sysfs sysfs rw\n"
	var pods strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&pods, "%d 21 0:4 net:[%d] /var/lib/podspec/pods/p%04d/sandbox/net rw - nsfs nsfs rw\n", 100+i, 4026530000+i, i)
	}
	read := func(table string, want map[string]bool) ([]CgroupHierarchy, *countingReader) {
		t.Helper()
		r := &countingReader{r: *strings.NewReader(table)}
		hs, err := parseCgroupHierarchies(r, want)
		if err != nil {
			t.Fatal(err)
		}
		return hs, r
	}
	want := parseCgroupMemberships(memberships)
	table := head + strings.Join(cgroups, "\n") + "\n" + pods.String()
	hs, r := read(table, want)
	if len(hs) != 5 || hs[3].Mountpoint != "/sys/fs/cgroup/cpu,cpuacct" || !slices.Equal(hs[3].Controllers, []string{"cpuacct", "cpu"}) || hs[0].Version != 2 {
		t.Errorf("hierarchies = %+v, want the 5 mounted", hs)
	}
	if r.n > 64<<10 {
		t.Errorf("read %d bytes of a %d-byte table whose hierarchies end at byte %d: the read grows with the pods' entries", r.n, len(table), len(head)+len(strings.Join(cgroups, "\n")))
	}
	if all, _ := read(table, nil); !slices.EqualFunc(all, hs, func(a, b CgroupHierarchy) bool { return a.Mountpoint == b.Mountpoint }) {
		t.Errorf("without memberships: %+v, want %+v", all, hs)
	}

	// The pids hierarchy mounted only after the pods' entries: found, the table read to it.
	late := head + strings.Join(cgroups[:4], "\n") + "\n" + pods.String() + cgroups[4] + "\n"
	if hs, r := read(late, want); len(hs) != 5 || hs[4].Mountpoint != "/sys/fs/cgroup/pids" || r.n != len(late) {
		t.Errorf("a hierarchy mounted last: %+v after %d of %d bytes, want all 5 and the whole table", hs, r.n, len(late))
	}
	// A member hierarchy not mounted (blkio): the whole table is read, the others found.
	if hs, r := read(table, parseCgroupMemberships(memberships+"5:blkio:/\n")); len(hs) != 5 || r.n != len(table) {
		t.Errorf("a hierarchy not mounted: %d hierarchies after %d of %d bytes, want 5 and the whole table", len(hs), r.n, len(table))
	}
}
