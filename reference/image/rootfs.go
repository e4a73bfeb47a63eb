package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/ocilayout"
)

// Rootfs kinds reported by NewRootfsKind.
const (
	RootfsOverlay = "overlay"
	RootfsCopy    = "copy"
)

// NewRootfs gives one container instance a fresh, writable root filesystem at dest (created,
// with missing parents as 0700; it must not exist or be an empty directory), built from img's unpacked layers (Unpack is
// called if needed). The cleanup function unmounts and removes everything NewRootfs made; it
// is idempotent.
//
// Preferred: an overlayfs mount with the unpacked cache directory as lowerdir and a fresh
// upperdir/workdir in dest+".overlay" (instant, shares the cache read-only). When the overlay
// mount fails (no overlayfs, unsupported backing filesystem, no privilege), the unpacked tree
// is copied to dest instead (slower, same semantics: writes never reach the cache or another
// instance).
func (s *Store) NewRootfs(ctx context.Context, img *ocilayout.Image, dest string) (func() error, error) {
	cleanup, _, err := s.NewRootfsKind(ctx, img, dest)
	return cleanup, err
}

// NewRootfsKind is NewRootfs that also reports which kind of root filesystem was made
// (RootfsOverlay or RootfsCopy).
func (s *Store) NewRootfsKind(ctx context.Context, img *ocilayout.Image, dest string) (func() error, string, error) {
	lower, err := s.Unpack(ctx, img)
	if err != nil {
		return nil, "", err
	}
	dest, err = filepath.Abs(dest)
	if err != nil {
		return nil, "", fmt.Errorf("rootfs %s: %w", dest, err)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return nil, "", fmt.Errorf("rootfs %s: %w", dest, err)
	}
	if err := os.Mkdir(dest, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, "", fmt.Errorf("rootfs %s: %w", dest, err)
	}
	if entries, err := os.ReadDir(dest); err != nil || len(entries) > 0 {
		if err == nil {
			err = errors.New("directory is not empty")
		}
		return nil, "", fmt.Errorf("rootfs %s: %w", dest, err)
	}
	ov := dest + ".overlay"
	upper, work := filepath.Join(ov, "upper"), filepath.Join(ov, "work")
	cleanup := func() error { return removeRootfs(dest, ov) }
	if err := os.MkdirAll(upper, 0o755); err != nil {
		return nil, "", fmt.Errorf("rootfs %s: %w", dest, errors.Join(err, cleanup()))
	}
	if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, "", fmt.Errorf("rootfs %s: %w", dest, errors.Join(err, cleanup()))
	}
	opts := "lowerdir=" + escapeOverlay(lower) + ",upperdir=" + escapeOverlay(upper) + ",workdir=" + escapeOverlay(work)
	if merr := unix.Mount("overlay", dest, "overlay", 0, opts); merr == nil {
		return cleanup, RootfsOverlay, nil
	}
	if err := os.RemoveAll(ov); err != nil {
		return nil, "", fmt.Errorf("rootfs %s: %w", dest, errors.Join(err, cleanup()))
	}
	if err := copyTree(ctx, lower, dest); err != nil {
		return nil, "", fmt.Errorf("rootfs %s: copy %s: %w", dest, lower, errors.Join(err, cleanup()))
	}
	return cleanup, RootfsCopy, nil
}

// escapeOverlay escapes the characters overlayfs treats specially in its options.
func escapeOverlay(p string) string {
	return strings.NewReplacer(`\`, `\\`, `,`, `\,`, `:`, `\:`).Replace(p)
}

// removeRootfs unmounts dest if it is a mount point and removes dest and the overlay dirs.
func removeRootfs(dest, ov string) error {
	var errs []error
	for i := 0; ; i++ {
		err := unix.Unmount(dest, 0)
		if err == nil {
			continue // stacked mounts: unmount until none is left
		}
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOENT) {
			break // not a mount point (any more), or gone
		}
		if errors.Is(err, unix.EBUSY) && i < 50 {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if errors.Is(err, unix.EBUSY) {
			// Still busy (a process holds it): detach so removal can proceed.
			if derr := unix.Unmount(dest, unix.MNT_DETACH); derr != nil {
				errs = append(errs, fmt.Errorf("unmount %s: %w", dest, derr))
			}
			break
		}
		errs = append(errs, fmt.Errorf("unmount %s: %w", dest, err))
		break
	}
	if len(errs) > 0 {
		return errors.Join(errs...) // never remove files below a still-mounted rootfs
	}
	for _, p := range []string{dest, ov} {
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// copyTree copies src into the existing directory dst, preserving modes, ownership,
// symlinks and hardlinks (within the tree) and modification times, whatever the umask
// (IMG-014): every mode is set explicitly after its entry is created, and directories' times
// once the walk is done (entries created in a directory change its time).
func copyTree(ctx context.Context, src, dst string) error {
	links := map[[2]uint64]string{}
	var dirs []dirTime
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st, _ := fi.Sys().(*syscall.Stat_t)
		switch {
		case fi.IsDir():
			if rel != "." {
				if err := os.Mkdir(target, 0o700); err != nil {
					return err
				}
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if err := os.Symlink(l, target); err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			if st != nil && st.Nlink > 1 {
				key := [2]uint64{st.Dev, st.Ino}
				if first, ok := links[key]; ok {
					return os.Link(first, target)
				}
				links[key] = target
			}
			if err := copyFile(p, target); err != nil {
				return err
			}
		case fi.Mode()&fs.ModeNamedPipe != 0:
			if err := unix.Mkfifo(target, uint32(fi.Mode().Perm())); err != nil {
				return err
			}
		default:
			return nil // sockets, devices: not part of images
		}
		if st != nil {
			if err := os.Lchown(target, int(st.Uid), int(st.Gid)); err != nil {
				return err
			}
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if err := os.Chmod(target, fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
				return err
			}
		}
		if fi.IsDir() {
			dirs = append(dirs, dirTime{target, fi.ModTime()})
		} else {
			ts := unix.NsecToTimespec(fi.ModTime().UnixNano())
			_ = unix.UtimesNanoAt(unix.AT_FDCWD, target, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range dirs {
		_ = os.Chtimes(d.path, d.mtime, d.mtime)
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
