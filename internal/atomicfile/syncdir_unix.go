//go:build !windows

package atomicfile

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// SyncDir fsyncs a directory, making the renames and creations in it durable. Filesystems that
// cannot sync a directory (EINVAL) are not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
