package framework

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/conformance/probe"
)

// SEC-006 exempts exactly a read-only bind of a default device's node: a writable bind, another
// device, a regular file or a path that is gone still count as host paths.
func TestIsReadOnlyDefaultDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	dir := t.TempDir()
	node := func(name string, major, minor uint32) string {
		p := filepath.Join(dir, name)
		if err := unix.Mknod(p, unix.S_IFCHR|0o666, int(unix.Mkdev(major, minor))); err != nil {
			t.Fatalf("mknod %s: %v", p, err)
		}
		return p
	}
	null, zero, tty := node("null", 1, 3), node("zero", 1, 5), node("tty", 5, 0)
	kmsg, console := node("kmsg", 1, 11), node("console", 5, 1)
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ro, rw := probe.Mount{Path: "/proc/keys", ReadOnly: true}, probe.Mount{Path: "/proc/keys"}
	for _, c := range []struct {
		m    probe.Mount
		host string
		want bool
	}{
		{ro, null, true},
		{ro, zero, true},
		{ro, tty, true},
		{rw, null, false},    // a container's root could chmod the host's node
		{ro, kmsg, false},    // not a default device
		{ro, console, false}, // 5:1 is not 5:0
		{ro, file, false},    // host content, not a device
		{ro, filepath.Join(dir, "gone"), false},
	} {
		if got := IsReadOnlyDefaultDevice(c.m, c.host); got != c.want {
			t.Errorf("IsReadOnlyDefaultDevice(readOnly=%v, %s) = %v, want %v", c.m.ReadOnly, filepath.Base(c.host), got, c.want)
		}
	}
}
