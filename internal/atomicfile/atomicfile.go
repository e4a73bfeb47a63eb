// Package atomicfile replaces files so that a reader, or the next process after a crash, sees
// the old content or the new, never a part: the data goes to a temporary file in the same
// directory, is fsynced, renamed over the target, and the directory is fsynced.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile atomically replaces path with data, with permission bits perm (not masked by the
// umask). On error path is unchanged and no temporary file is left.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write atomically replaces path with what write writes, with permission bits perm (not
// masked by the umask). When write returns an error, path is unchanged and the error is
// returned wrapped.
func Write(path string, perm os.FileMode, write func(io.Writer) error) error {
	return replace(path, perm, write, true)
}

// WriteNoSync is Write without the fsyncs: readers still see the old content or the new, never
// a part, but after a host crash path may hold either, or be empty. It is for files read at
// once, in the same boot, and worth nothing after a crash (an OCI bundle's config.json, a
// cache stamp), where a disk flush would only slow the path that writes them.
func WriteNoSync(path string, perm os.FileMode, write func(io.Writer) error) error {
	return replace(path, perm, write, false)
}

func replace(path string, perm os.FileMode, write func(io.Writer) error, durable bool) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", path, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s: %w", path, err)
	}
	ok = true
	if !durable {
		return nil
	}
	return SyncDir(dir)
}
