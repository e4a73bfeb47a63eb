package image

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// umaskLayer is a layer with every file type an unpack creates, each with a mode the usual
// umasks (022, 077) would change, its own owner and its own time. "implicit" is a directory
// no entry lists (created as the parent of implicit/f).
func umaskLayer(t *testing.T) ([]byte, map[string]*tar.Header) {
	t.Helper()
	at := func(s int64) time.Time { return time.Unix(1_600_000_000+s, 0) }
	hs := []*tar.Header{
		{Typeflag: tar.TypeDir, Name: "d/", Mode: 0o2775, Uid: 11, Gid: 12, ModTime: at(1)},
		{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777, ModTime: at(2)},
		{Typeflag: tar.TypeReg, Name: "d/f", Mode: 0o4755, Uid: 13, Gid: 14, ModTime: at(3), Size: 2},
		{Typeflag: tar.TypeReg, Name: "d/shared", Mode: 0o666, Uid: 15, Gid: 16, ModTime: at(4), Size: 2},
		{Typeflag: tar.TypeFifo, Name: "d/fifo", Mode: 0o666, Uid: 17, Gid: 18, ModTime: at(5)},
		{Typeflag: tar.TypeSymlink, Name: "d/link", Linkname: "f", Mode: 0o777, Uid: 19, Gid: 20, ModTime: at(6)},
		{Typeflag: tar.TypeLink, Name: "d/hard", Linkname: "d/shared"},
		{Typeflag: tar.TypeReg, Name: "implicit/f", Mode: 0o644, ModTime: at(7), Size: 2},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	want := map[string]*tar.Header{}
	for _, h := range hs {
		h.Format = tar.FormatPAX
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			if _, err := tw.Write([]byte("x\n")); err != nil {
				t.Fatal(err)
			}
		}
		want[filepath.Clean(h.Name)] = h
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	want["d/hard"] = want["d/shared"] // one inode
	want["implicit"] = &tar.Header{Typeflag: tar.TypeDir, Mode: 0o755}
	return buf.Bytes(), want
}

// withUmask runs f with the process's umask set to mask (no test of this package runs in
// parallel, so nothing else creates files meanwhile).
func withUmask(mask int, f func()) {
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	f()
}

// checkTree reports every entry of root whose mode (type and permission bits), owner or
// modification time differs from its layer's header; a header without a time leaves the time
// unchecked.
func checkTree(t *testing.T, what, root string, want map[string]*tar.Header) {
	t.Helper()
	for rel, h := range want {
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(root, rel), &st); err != nil {
			t.Errorf("%s: %s: %v", what, rel, err)
			continue
		}
		typ := map[byte]uint32{tar.TypeDir: unix.S_IFDIR, tar.TypeReg: unix.S_IFREG, tar.TypeFifo: unix.S_IFIFO, tar.TypeSymlink: unix.S_IFLNK}[h.Typeflag]
		wantMode := typ | uint32(h.Mode)&0o7777
		got := fmt.Sprintf("mode %o owner %d:%d", st.Mode, st.Uid, st.Gid)
		exp := fmt.Sprintf("mode %o owner %d:%d", wantMode, h.Uid, h.Gid)
		if got != exp {
			t.Errorf("%s: %s has %s, want its layer's %s", what, rel, got, exp)
		}
		if !h.ModTime.IsZero() && st.Mtim.Sec != h.ModTime.Unix() {
			t.Errorf("%s: %s has mtime %d, want its layer's %d", what, rel, st.Mtim.Sec, h.ModTime.Unix())
		}
	}
}

// TestIMG014_UnpackGivesEveryFileItsLayersModeOwnerAndTimeWhateverTheUmask: the same layer
// unpacked under umask 077 and 022 gives a directory (setgid, sticky), a directory no entry
// lists, a regular file (setuid), a FIFO, a symbolic link and a hard link exactly their
// layer's mode, owner and time; so does the copy a container gets when overlayfs cannot be
// mounted, made under umask 077.
func TestIMG014_UnpackGivesEveryFileItsLayersModeOwnerAndTimeWhateverTheUmask(t *testing.T) {
	needRoot(t)
	data, want := umaskLayer(t)
	for _, mask := range []int{0o077, 0o022} {
		root := t.TempDir()
		withUmask(mask, func() {
			if err := extractLayer(bytes.NewReader(data), root); err != nil {
				t.Fatal(err)
			}
		})
		what := fmt.Sprintf("unpacked under umask %03o", mask)
		checkTree(t, what, root, want)
		if mask != 0o077 {
			continue
		}
		dst := t.TempDir()
		withUmask(mask, func() {
			if err := copyTree(context.Background(), root, dst); err != nil {
				t.Fatal(err)
			}
		})
		checkTree(t, "copied under umask 077", dst, want)
	}
}

// TestIMG014_DirectoryTimesNeverRecreateWhatTheLayerRemoved: the times of a layer's
// directories are set at its end, and only on directories still there: one a later whiteout of
// its parent removed is not created again, and an entry that replaced one by a file keeps the
// file's own time.
func TestIMG014_DirectoryTimesNeverRecreateWhatTheLayerRemoved(t *testing.T) {
	needRoot(t)
	old, file := time.Unix(1_500_000_000, 0), time.Unix(1_600_000_000, 0)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range []*tar.Header{
		{Typeflag: tar.TypeDir, Name: "gone/", Mode: 0o755, ModTime: old},
		{Typeflag: tar.TypeDir, Name: "gone/sub/", Mode: 0o755, ModTime: old},
		{Typeflag: tar.TypeReg, Name: ".wh.gone", Mode: 0o644},
		{Typeflag: tar.TypeDir, Name: "replaced/", Mode: 0o755, ModTime: old},
		{Typeflag: tar.TypeReg, Name: "replaced", Mode: 0o644, ModTime: file},
	} {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := extractLayer(&buf, root); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Lstat(filepath.Join(root, "gone"), &st); err == nil {
		t.Errorf("gone exists again (mode %o) after its whiteout", st.Mode)
	}
	if err := unix.Lstat(filepath.Join(root, "replaced"), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mtim.Sec != file.Unix() {
		t.Errorf("replaced: mode %o mtime %d (%v), want a regular file with its own time %d", st.Mode, st.Mtim.Sec, err, file.Unix())
	}
}
