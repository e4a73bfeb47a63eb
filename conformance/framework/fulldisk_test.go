package framework

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A SmallDisk holds only what is below its mount point on its own file system, fills to the
// last byte, and has room again once freed.
func TestSmallDiskHoldsItsOwnTreeFillsAndFrees(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	f := &Framework{cfg: Config{WorkDir: t.TempDir()}, RT: &Runtime{argv: []string{"runtime"}}}
	iso, d, err := f.OnSmallDisk("small", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Unmount(); err != nil {
			t.Error(err)
		}
	})
	if got := strings.Join(iso.RT.Command(), " "); got != "runtime --root "+d.Dir {
		t.Errorf("the small disk's runtime is %q, want the root %s appended", got, d.Dir)
	}
	inner := filepath.Join(d.Dir, "pods")
	if err := os.Mkdir(inner, 0o700); err != nil {
		t.Fatal(err)
	}
	if ok, why := d.Holds(inner); !ok {
		t.Errorf("a directory below the mount point: %s", why)
	}
	outside := t.TempDir()
	if ok, _ := d.Holds(outside); ok {
		t.Errorf("%s, outside the mount, is held", outside)
	}
	link := filepath.Join(d.Dir, "elsewhere")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if ok, _ := d.Holds(link); ok {
		t.Errorf("a link below the mount point to %s is held", outside)
	}
	sub := filepath.Join(d.Dir, "mounted")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", sub, "tmpfs", 0, "size=64k"); err != nil {
		t.Fatal(err)
	}
	defer unix.Unmount(sub, unix.MNT_DETACH)
	if ok, _ := d.Holds(sub); ok {
		t.Errorf("another file system mounted below the mount point is held")
	}

	n, err := d.Fill()
	if err != nil {
		t.Fatal(err)
	}
	if free, err := d.FreeBytes(); err != nil || free != 0 || n == 0 {
		t.Fatalf("after filling %d bytes: %d bytes free (%v), want 0", n, free, err)
	}
	if err := os.WriteFile(filepath.Join(inner, "state"), []byte("x"), 0o600); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("a write on the full disk: %v, want ENOSPC", err)
	}
	if err := d.Free(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inner, "state"), []byte("x"), 0o600); err != nil {
		t.Fatalf("a write once freed: %v", err)
	}
}
