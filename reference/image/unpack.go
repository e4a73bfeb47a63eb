package image

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sys/unix"
	"podspec.dev/podspec/internal/atomicfile"
	"podspec.dev/podspec/internal/flock"
	"podspec.dev/podspec/ocilayout"
)

// Whiteout markers of the OCI layer format.
const (
	whiteoutPrefix = ".wh."
	whiteoutOpaque = ".wh..wh..opq"
)

// Unpack extracts img's layers, in order, into the store's cache and returns the directory
// holding the root filesystem (Root/rootfs-v2/<manifest-hex>). It runs once per manifest digest:
// later calls (also from other processes) return the existing directory. Concurrent calls are
// serialised by an flock on Root/locks/<hex>.lock; extraction goes to a temporary directory
// under Root/tmp that is renamed into place only when complete, so a crash never leaves a
// half-unpacked image in the cache. Layer digests are verified again while extracting.
//
// Extraction is path-safe (see extractLayer): no entry can create, modify or remove anything
// outside the root filesystem, whatever its name, symlinks or hardlinks say.
func (s *Store) Unpack(ctx context.Context, img *ocilayout.Image) (string, error) {
	if s.Root == "" {
		return "", fmt.Errorf("unpack %s: store has no root directory", img.Ref)
	}
	hexd := strings.TrimPrefix(img.Digest, "sha256:")
	if !ocilayout.ValidDigest(img.Digest) {
		return "", fmt.Errorf("unpack %s: %w: digest %q", img.Ref, ocilayout.ErrUnsupported, img.Digest)
	}
	final := s.rootfsPath(img.Digest)
	if fi, err := os.Stat(final); err == nil && fi.IsDir() {
		return final, nil
	}
	for _, d := range []string{unpackedDir, "locks", "tmp"} {
		if err := os.MkdirAll(filepath.Join(s.Root, d), 0o700); err != nil {
			return "", fmt.Errorf("unpack %s: %w", img.Ref, err)
		}
	}
	unlock, err := flock.Exclusive(ctx, filepath.Join(s.Root, "locks", hexd+".lock"))
	if err != nil {
		return "", fmt.Errorf("unpack %s: %w", img.Ref, err)
	}
	defer unlock()
	if fi, err := os.Stat(final); err == nil && fi.IsDir() {
		return final, nil // another caller finished while we waited
	}
	// Leftovers of an unpack of this digest that crashed: nobody else holds the lock.
	if stale, err := filepath.Glob(filepath.Join(s.Root, "tmp", hexd[:12]+"-*")); err == nil {
		for _, d := range stale {
			_ = os.RemoveAll(d)
		}
	}
	tmp, err := os.MkdirTemp(filepath.Join(s.Root, "tmp"), hexd[:12]+"-")
	if err != nil {
		return "", fmt.Errorf("unpack %s: %w", img.Ref, err)
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", fmt.Errorf("unpack %s: %w", img.Ref, err)
	}
	for i, l := range img.Manifest.Layers {
		var diffID string
		if i < len(img.Config.RootFS.DiffIDs) {
			diffID = string(img.Config.RootFS.DiffIDs[i])
		}
		if err := unpackLayer(ctx, img.Ref.Path, l, diffID, tmp); err != nil {
			return "", fmt.Errorf("unpack %s: layer %d (%s): %w", img.Ref, i, l.Digest, err)
		}
	}
	if err := atomicfile.SyncDir(tmp); err != nil {
		return "", fmt.Errorf("unpack %s: %w", img.Ref, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return "", fmt.Errorf("unpack %s: %w", img.Ref, err)
	}
	ok = true
	_ = atomicfile.SyncDir(filepath.Dir(final))
	return final, nil
}

// unpackLayer verifies and extracts one layer blob into root.
func unpackLayer(ctx context.Context, layout string, d ocispec.Descriptor, diffID, root string) error {
	l, err := ocilayout.OpenLayer(ctx, layout, d, diffID)
	if err != nil {
		return err
	}
	defer l.Close()
	if err := extractLayer(l, root); err != nil {
		return err
	}
	return l.Verify()
}

// rootFS performs file operations scoped to a root directory. Every path is resolved with
// openat2(RESOLVE_IN_ROOT): symlinks (absolute or relative) and ".." are resolved as if the
// root were "/", so nothing outside it can be reached. Only the final component of a path is
// created or replaced, relative to its resolved parent directory, without following it.
type rootFS struct {
	fd   int
	path string
}

func openRoot(dir string) (*rootFS, error) {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open root %s: %w", dir, err)
	}
	return &rootFS{fd: fd, path: dir}, nil
}

func (r *rootFS) close() { unix.Close(r.fd) }

// openParent resolves the parent directory of rel inside the root, creating missing
// directories (mode 0755 whatever the umask, root-owned) on the way, and returns its fd and
// rel's last component.
func (r *rootFS) openParent(rel string) (int, string, error) {
	dir, base := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	if base == "" || base == "." || base == ".." {
		return -1, "", fmt.Errorf("invalid entry name %q", rel)
	}
	fd, err := r.openDir(dir, true)
	if err != nil {
		return -1, "", err
	}
	return fd, base, nil
}

// openDir opens directory rel (resolved in root), creating missing components when create.
func (r *rootFS) openDir(rel string, create bool) (int, error) {
	how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS}
	if rel == "" || rel == "." {
		return unix.Openat2(r.fd, ".", how)
	}
	fd, err := unix.Openat2(r.fd, rel, how)
	if err == nil || !create || !errors.Is(err, unix.ENOENT) {
		if err != nil {
			return -1, fmt.Errorf("open directory %s: %w", rel, err)
		}
		return fd, nil
	}
	// Create the missing components one by one, each relative to its resolved parent.
	pfd, name, err := r.openParent(rel)
	if err != nil {
		return -1, err
	}
	defer unix.Close(pfd)
	if err := unix.Mkdirat(pfd, name, 0o755); err == nil {
		// mkdir applies the umask; the mode of a directory no entry lists is 0755 (IMG-014).
		if err := unix.Fchmodat(pfd, name, 0o755, 0); err != nil {
			return -1, fmt.Errorf("create directory %s: %w", rel, err)
		}
	} else if !errors.Is(err, unix.EEXIST) {
		return -1, fmt.Errorf("create directory %s: %w", rel, err)
	}
	fd, err = unix.Openat2(r.fd, rel, how)
	if err != nil {
		return -1, fmt.Errorf("open directory %s: %w", rel, err)
	}
	return fd, nil
}

// procPath names a directory fd's entry through /proc/self/fd, for calls without an *at form.
func procPath(fd int, name string) string {
	return fmt.Sprintf("/proc/self/fd/%d/%s", fd, name)
}

// removeAt removes name (recursively for directories) in the directory fd, never following a
// symlink named name.
func removeAt(fd int, name string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		// os.RemoveAll does not follow symlinks below the directory; the directory itself is
		// addressed through its resolved parent's fd.
		return os.RemoveAll(procPath(fd, name))
	}
	return unix.Unlinkat(fd, name, 0)
}

// extractLayer applies one uncompressed tar layer to root.
//
// Safety rules: entry names are made relative (ocilayout.EntryPath) and ".." escapes are rejected; every
// parent directory is resolved inside the root (rootFS), so a symlink planted by an earlier
// entry or layer cannot redirect a write, hardlink or whiteout outside; hardlink targets are
// resolved inside the root too; character and block devices are skipped (containers get
// their /dev from the runtime); extended attributes are not applied.
//
// Every entry gets exactly its header's mode (setuid, setgid and sticky bits included), owner
// and modification time, whatever the umask of the unpacking process (IMG-014): each is set
// explicitly after the entry is created (the reference runtime runs as root). A directory's
// time is set once the whole layer is applied, since entries created in it later change it (a
// later layer that changes a directory without listing it changes its time; image builders
// list the parents of what a layer changes).
func extractLayer(r io.Reader, root string) error {
	rfs, err := openRoot(root)
	if err != nil {
		return err
	}
	defer rfs.close()
	// Paths written by this layer: an opaque whiteout hides only what lower layers put there.
	written := map[string]bool{}
	var dirTimes []dirTime // directories of the layer (paths in the root), their times set at its end
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return setDirTimes(rfs, dirTimes)
		}
		if err != nil {
			return fmt.Errorf("read tar: %w", err)
		}
		rel, err := ocilayout.EntryPath(hdr.Name)
		if err != nil {
			return err
		}
		if rel == "" {
			continue // the root itself
		}
		if err := applyEntry(rfs, tr, hdr, rel, written); err != nil {
			return fmt.Errorf("entry %q: %w", hdr.Name, err)
		}
		if hdr.Typeflag == tar.TypeDir {
			dirTimes = append(dirTimes, dirTime{rel, hdr.ModTime})
		}
	}
}

// dirTime is a directory whose modification time is set once everything in it is written
// (entries created in a directory change its time).
type dirTime struct {
	path  string
	mtime time.Time
}

// setDirTimes sets the modification time of each directory of a layer (path: in the root),
// resolved in the root like every other entry. A directory a later entry of the layer
// removed (a whiteout) or replaced by another type is left alone, and nothing is created.
func setDirTimes(rfs *rootFS, dirs []dirTime) error {
	for _, d := range dirs {
		pfd, err := rfs.openDir(path.Dir(d.path), false)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return fmt.Errorf("entry %q: %w", d.path, err)
		}
		base := path.Base(d.path)
		var st unix.Stat_t
		if unix.Fstatat(pfd, base, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			setTimes(pfd, base, d.mtime)
		}
		unix.Close(pfd)
	}
	return nil
}

// applyEntry applies the tar entry hdr (named rel in the root, its content read from tr) to
// the root: a whiteout removes what it names; any other entry replaces what is at rel with an
// entry of its type, owner, mode and time, and rel is then recorded in written.
func applyEntry(rfs *rootFS, tr *tar.Reader, hdr *tar.Header, rel string, written map[string]bool) error {
	pfd, base, err := rfs.openParent(rel)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)

	if base == whiteoutOpaque {
		return applyOpaqueWhiteout(pfd, path.Dir(rel), written)
	}
	if target, ok := strings.CutPrefix(base, whiteoutPrefix); ok {
		return applyWhiteout(pfd, target)
	}

	switch hdr.Typeflag {
	case tar.TypeDir:
		err = applyDir(pfd, base, hdr)
	case tar.TypeReg: // archive/tar reads an old layer's TypeRegA as TypeReg
		err = applyRegular(pfd, base, hdr, tr)
	case tar.TypeSymlink:
		err = applySymlink(pfd, base, hdr)
	case tar.TypeLink:
		var linked bool
		linked, err = applyHardlink(rfs, pfd, base, hdr, rel)
		if err == nil && !linked {
			return nil // a link to itself: nothing written
		}
	case tar.TypeFifo:
		err = applyFifo(pfd, base, hdr)
	case tar.TypeChar, tar.TypeBlock:
		return nil // device nodes are skipped
	case tar.TypeXGlobalHeader, tar.TypeXHeader, tar.TypeGNULongName, tar.TypeGNULongLink:
		return nil
	default:
		return fmt.Errorf("unsupported tar entry type %q", hdr.Typeflag)
	}
	if err != nil {
		return err
	}
	written[rel] = true
	return nil
}

// applyOpaqueWhiteout removes everything in the directory pfd (parentRel in the root) that
// this layer did not write (written): what lower layers put there.
func applyOpaqueWhiteout(pfd int, parentRel string, written map[string]bool) error {
	entries, err := os.ReadDir(procPath(pfd, "."))
	if err != nil {
		return fmt.Errorf("opaque whiteout: %w", err)
	}
	for _, e := range entries {
		if written[path.Join(parentRel, e.Name())] {
			continue
		}
		if err := removeAt(pfd, e.Name()); err != nil {
			return fmt.Errorf("opaque whiteout: %w", err)
		}
	}
	return nil
}

// applyWhiteout removes target, the entry a whiteout names, from the directory pfd.
func applyWhiteout(pfd int, target string) error {
	if target == "" || target == "." || target == ".." || strings.HasPrefix(target, whiteoutPrefix) {
		return fmt.Errorf("invalid whiteout")
	}
	return removeAt(pfd, target)
}

// tarMode is the permission bits of hdr's mode, setuid, setgid and sticky included.
func tarMode(hdr *tar.Header) uint32 {
	return uint32(hdr.Mode) & 0o7777
}

// applyDir makes base in the directory pfd a directory (keeping one already there, replacing
// anything else) with hdr's owner and mode; its time is set at the layer's end (setDirTimes).
func applyDir(pfd int, base string, hdr *tar.Header) error {
	var st unix.Stat_t
	err := unix.Fstatat(pfd, base, &st, unix.AT_SYMLINK_NOFOLLOW)
	if err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		if err := removeAt(pfd, base); err != nil {
			return err
		}
		err = unix.ENOENT
	}
	if err != nil {
		if !errors.Is(err, unix.ENOENT) {
			return err
		}
		if err := unix.Mkdirat(pfd, base, 0o700); err != nil {
			return err
		}
	}
	if err := unix.Fchownat(pfd, base, hdr.Uid, hdr.Gid, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	return unix.Fchmodat(pfd, base, tarMode(hdr), 0)
}

// applyRegular replaces base in the directory pfd with a new regular file holding the entry's
// content (read from tr), with hdr's owner, mode and time. The file is created, never opened
// through what was there (a link planted by an earlier entry).
func applyRegular(pfd int, base string, hdr *tar.Header, tr *tar.Reader) error {
	mode := tarMode(hdr)
	flags := unix.O_CREAT | unix.O_EXCL | unix.O_WRONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if err := removeAt(pfd, base); err != nil {
		return err
	}
	fd, err := unix.Openat(pfd, base, flags, 0o600)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), base)
	_, cerr := io.Copy(f, tr)
	if cerr == nil {
		cerr = f.Chown(hdr.Uid, hdr.Gid)
	}
	if cerr == nil {
		cerr = f.Chmod(os.FileMode(mode&0o777) | modeBits(mode))
	}
	if err := f.Close(); cerr == nil {
		cerr = err
	}
	if cerr != nil {
		return cerr
	}
	setTimes(pfd, base, hdr.ModTime)
	return nil
}

// applySymlink replaces base in the directory pfd with a symlink to hdr.Linkname, with hdr's
// owner and time (a symlink has no mode of its own).
func applySymlink(pfd int, base string, hdr *tar.Header) error {
	if err := removeAt(pfd, base); err != nil {
		return err
	}
	if err := unix.Symlinkat(hdr.Linkname, pfd, base); err != nil {
		return err
	}
	if err := unix.Fchownat(pfd, base, hdr.Uid, hdr.Gid, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	setTimes(pfd, base, hdr.ModTime)
	return nil
}

// applyHardlink replaces base in the directory pfd (rel in the root) with a hard link to the
// entry hdr.Linkname names, resolved inside the root; a directory cannot be linked. It links
// nothing, and returns false, when the target is rel itself.
func applyHardlink(rfs *rootFS, pfd int, base string, hdr *tar.Header, rel string) (bool, error) {
	trel, err := ocilayout.EntryPath(hdr.Linkname)
	if err != nil || trel == "" {
		return false, fmt.Errorf("hardlink target %q: outside the root filesystem", hdr.Linkname)
	}
	tfd, tbase, err := rfs.openParent(trel)
	if err != nil {
		return false, fmt.Errorf("hardlink target %q: %w", hdr.Linkname, err)
	}
	defer unix.Close(tfd)
	var st unix.Stat_t
	if err := unix.Fstatat(tfd, tbase, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return false, fmt.Errorf("hardlink target %q: %w", hdr.Linkname, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return false, fmt.Errorf("hardlink target %q is a directory", hdr.Linkname)
	}
	if trel == rel {
		return false, nil
	}
	if err := removeAt(pfd, base); err != nil {
		return false, err
	}
	// flags 0: a symlink named by the target is linked itself, never followed.
	if err := unix.Linkat(tfd, tbase, pfd, base, 0); err != nil {
		return false, err
	}
	return true, nil
}

// applyFifo replaces base in the directory pfd with a named pipe with hdr's owner, mode and
// time.
func applyFifo(pfd int, base string, hdr *tar.Header) error {
	mode := tarMode(hdr)
	if err := removeAt(pfd, base); err != nil {
		return err
	}
	if err := unix.Mknodat(pfd, base, unix.S_IFIFO|(mode&0o777), 0); err != nil {
		return err
	}
	if err := unix.Fchownat(pfd, base, hdr.Uid, hdr.Gid, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	// mknod applies the umask; chmod does not (and after chown, which clears setuid bits).
	if err := unix.Fchmodat(pfd, base, mode, 0); err != nil {
		return err
	}
	setTimes(pfd, base, hdr.ModTime)
	return nil
}

// modeBits maps setuid/setgid/sticky bits of a tar mode to os.FileMode bits.
func modeBits(mode uint32) os.FileMode {
	var m os.FileMode
	if mode&0o4000 != 0 {
		m |= os.ModeSetuid
	}
	if mode&0o2000 != 0 {
		m |= os.ModeSetgid
	}
	if mode&0o1000 != 0 {
		m |= os.ModeSticky
	}
	return m
}

func setTimes(dirfd int, name string, mtime time.Time) {
	if mtime.IsZero() {
		return
	}
	ts := unix.NsecToTimespec(mtime.UnixNano())
	_ = unix.UtimesNanoAt(dirfd, name, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW)
}
