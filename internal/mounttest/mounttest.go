// Package mounttest lets tests mount real filesystems at paths that the kernel must escape in
// /proc/PID/mountinfo (a space, a tab, a newline, a backslash), without touching the host's
// mount table: the mounts are made in a mount namespace of one thread, which ends with the test.
// Only tests import it.
package mounttest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// OddName is a file name with every byte mountinfo writes as an octal escape: space (\040), tab
// (\011), newline (\012) and backslash (\134). A parser that does not undo the escapes, or
// splits on the whitespace, reads another path.
const OddName = "a b\tc\nd\\e"

// InPrivateNamespace runs fn on a thread of its own that has left the process's mount namespace
// for a new one, whose mounts propagate nowhere; fn's mounts are seen by that thread alone (what
// reads /proc/thread-self/mountinfo on it sees them) and vanish when it ends. It skips the test
// unless it runs as root.
func InPrivateNamespace(t testing.TB, fn func() error) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the thread, and its mount namespace with it, end with this goroutine.
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			errc <- fmt.Errorf("unshare the mount namespace: %w", err)
			return
		}
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			errc <- fmt.Errorf("make the mounts private: %w", err)
			return
		}
		errc <- fn()
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// Tmpfs mounts a tmpfs named source at dir/name, creating the directory; it returns the mount
// point. Call it inside InPrivateNamespace.
func Tmpfs(source, dir, name string) (string, error) {
	mp := filepath.Join(dir, name)
	if err := os.MkdirAll(mp, 0o755); err != nil {
		return "", err
	}
	if err := unix.Mount(source, mp, "tmpfs", 0, "size=1m"); err != nil {
		return "", fmt.Errorf("mount tmpfs on %q: %w", mp, err)
	}
	return mp, nil
}

// Bind bind-mounts src on dst, creating dst.
func Bind(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind %q on %q: %w", src, dst, err)
	}
	return nil
}
