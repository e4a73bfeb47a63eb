package ocilayout

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"podspec.dev/podspec/internal/filetype"
)

// Bounds of the files of a layout that declare no size of their own (a blob's size is its
// descriptor's): a hostile layout cannot make a read take more memory or time than these.
const (
	// maxLayoutFile bounds oci-layout, a one-line JSON object.
	maxLayoutFile = 64 << 10
	// maxIndex bounds index.json (about 20,000 tagged images).
	maxIndex = 4 << 20
	// maxJSONBlob bounds a manifest, config or nested index blob.
	maxJSONBlob = 16 << 20
)

// ErrNotRegular means a file of a layout (index.json, oci-layout, a blob) is not a regular file
// inside the layout: a symbolic link, a FIFO, a device, a directory. Reading one could block
// forever (a FIFO), never end (a link to /dev/zero) or read outside the layout; it wraps
// ErrUnsupported.
var ErrNotRegular = fmt.Errorf("%w: not a regular file inside the layout", ErrUnsupported)

// openRegular opens a file of a layout for reading, refusing anything but a regular file that
// is not a symbolic link (O_NOFOLLOW). O_NONBLOCK makes opening a FIFO return at once instead of
// waiting for a writer; it does not change how a regular file reads.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, nil, fmt.Errorf("%w: %s is a symbolic link", ErrNotRegular, path)
	}
	if err != nil {
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s is %s", ErrNotRegular, path, filetype.Name(fi.Mode()))
	}
	return f, fi, nil
}

// readLayoutFile reads a file of the layout that declares no size (index.json, oci-layout):
// a regular file of at most limit bytes.
func readLayoutFile(path string, limit int64) ([]byte, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, fmt.Errorf("%w: %s is %d bytes (max %d)", ErrUnsupported, path, fi.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: %s grew past %d bytes while read", ErrUnsupported, path, limit)
	}
	return b, nil
}

// openBlob opens blob d of a layout: a regular file (not a link) under blobs/sha256, whose
// directories are not links either, of exactly the size d declares. The returned reader gives
// at most d.Size+1 bytes, so a file that grows while read shows as a size mismatch and never
// makes the read longer.
func openBlob(layout string, d ocispec.Descriptor) (*os.File, io.Reader, error) {
	p, err := blobPath(layout, d)
	if err != nil {
		return nil, nil, err
	}
	if d.Size < 0 {
		return nil, nil, fmt.Errorf("%w: blob %s has a negative size %d", ErrUnsupported, d.Digest, d.Size)
	}
	for _, dir := range []string{filepath.Join(layout, ocispec.ImageBlobsDir), filepath.Dir(p)} {
		fi, err := os.Lstat(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: blob %s (%s): %v", ErrNotFound, d.Digest, d.MediaType, err)
		}
		if !fi.IsDir() {
			return nil, nil, fmt.Errorf("%w: %s is %s, not a directory", ErrNotRegular, dir, filetype.Name(fi.Mode()))
		}
	}
	f, fi, err := openRegular(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: blob %s (%s): %v", ErrNotFound, d.Digest, d.MediaType, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("blob %s (%s): %w", d.Digest, d.MediaType, err)
	}
	if fi.Size() != d.Size {
		f.Close()
		return nil, nil, fmt.Errorf("%w: blob %s (%s) is %d bytes, descriptor says %d", ErrDigestMismatch, d.Digest, d.MediaType, fi.Size(), d.Size)
	}
	return f, io.LimitReader(f, d.Size+1), nil
}
