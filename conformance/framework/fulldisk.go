package framework

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// SmallDisk is a small tmpfs the harness mounted as a runtime's state root (Framework.OnSmallDisk),
// which the harness can fill to the last byte and free again: a full disk under the runtime's
// state, made without the runtime's help. Mounting needs root (CAP_SYS_ADMIN).
type SmallDisk struct {
	// Dir is the mount point, the root the framework passes with --root.
	Dir    string
	dev    uint64
	filler string
}

// fillerName is the file SmallDisk.Fill writes, at the top of the mount (no runtime's name).
const fillerName = ".conformance-filler"

// OnSmallDisk mounts a tmpfs of size bytes under the work directory and returns a framework that
// drives the same runtime with that tmpfs as its root (the contract's global flag --root, as
// Isolated does), and the disk. The caller unmounts it (SmallDisk.Unmount) after removing the
// framework's pods (CleanupPods).
func (f *Framework) OnSmallDisk(name string, size int64) (*Framework, *SmallDisk, error) {
	dir := filepath.Join(f.cfg.WorkDir, "roots", name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("create root %s: %w", dir, err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		return nil, nil, fmt.Errorf("mount a tmpfs of %d bytes on %s: %w", size, dir, err)
	}
	d := &SmallDisk{Dir: dir, filler: filepath.Join(dir, fillerName)}
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		d.Unmount()
		return nil, nil, fmt.Errorf("stat %s: %w", dir, err)
	}
	d.dev = st.Dev
	iso, err := f.isolatedAt(name, dir)
	if err != nil {
		d.Unmount()
		return nil, nil, err
	}
	return iso, d, nil
}

// Holds reports whether path (a state directory a runtime named) lies on the disk: below its
// mount point once symbolic links are resolved, and on its file system (no other mount in
// between). why says where it lies instead.
func (d *SmallDisk) Holds(path string) (ok bool, why string) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false, fmt.Sprintf("%s cannot be resolved: %v", path, err)
	}
	if rel, err := filepath.Rel(d.Dir, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return false, fmt.Sprintf("%s (%s) is not below the root %s", path, real, d.Dir)
	}
	var st unix.Stat_t
	if err := unix.Stat(real, &st); err != nil {
		return false, fmt.Sprintf("stat %s: %v", real, err)
	}
	if st.Dev != d.dev {
		return false, fmt.Sprintf("%s is below the root %s but on another file system (a mount)", path, d.Dir)
	}
	return true, ""
}

// Fill writes a file of its own on the disk until the file system has no byte left (ENOSPC)
// and returns what it wrote. The file stays until Free.
func (d *SmallDisk) Fill() (int64, error) {
	f, err := os.OpenFile(d.filler, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			return 0, nil
		}
		return 0, fmt.Errorf("create %s: %w", d.filler, err)
	}
	defer f.Close()
	var n int64
	// Big writes first, then ever smaller ones down to a byte: what is left after a failed
	// write of one size may still take a smaller one.
	for chunk := 1 << 20; chunk > 0; chunk /= 4 {
		buf := make([]byte, chunk)
		for {
			w, err := f.Write(buf)
			n += int64(w)
			if err == nil {
				continue
			}
			if !errors.Is(err, syscall.ENOSPC) {
				return n, fmt.Errorf("fill %s: %w", d.filler, err)
			}
			break
		}
	}
	return n, nil
}

// FreeBytes is what is left on the disk (statfs: blocks available to an unprivileged writer).
func (d *SmallDisk) FreeBytes() (uint64, error) {
	var fs unix.Statfs_t
	if err := unix.Statfs(d.Dir, &fs); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", d.Dir, err)
	}
	return fs.Bavail * uint64(fs.Bsize), nil
}

// Free removes the file Fill wrote: the runtime's writes have room again.
func (d *SmallDisk) Free() error {
	if err := os.Remove(d.filler); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("free the disk: %w", err)
	}
	return nil
}

// Unmount detaches the tmpfs (lazily: a process of the runtime's that still holds a file open
// there keeps it alive until it lets go) and removes the mount point.
func (d *SmallDisk) Unmount() error {
	if err := unix.Unmount(d.Dir, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("unmount %s: %w", d.Dir, err)
	}
	if err := os.Remove(d.Dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the mount point %s: %w", d.Dir, err)
	}
	return nil
}
