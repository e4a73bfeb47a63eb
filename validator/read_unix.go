//go:build unix

package validator

import (
	"errors"
	"io/fs"
	"syscall"
)

// ReadFile reads a named input of at most max bytes (no limit when max <= 0): a regular file
// larger than max is refused from its size without being read, and anything else (a pipe, a
// device such as /dev/zero) is read up to max bytes and no further. An input over the limit is
// a *TooLargeError.
//
// It uses plain system calls: os.Open would also try to register every regular file with the
// network poller (four fcntl calls and a failing epoll_ctl per file), which costs more than the
// read itself when validating thousands of small manifests.
func ReadFile(name string, max int64) ([]byte, error) {
	fd, err := openRetry(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
	}
	size := int64(0)
	if st.Mode&syscall.S_IFMT == syscall.S_IFREG {
		size = st.Size
		if max > 0 && size > max {
			return nil, &TooLargeError{Name: name, Size: size, Limit: max}
		}
	}
	// Read to EOF (the size is a hint: the file may be a pipe, or change while read).
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := buf[len(buf):cap(buf)]
		if max > 0 && int64(len(room)) > max+1-int64(len(buf)) {
			room = room[:max+1-int64(len(buf))]
		}
		n, err := syscall.Read(fd, room)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
		if max > 0 && int64(len(buf)) > max {
			return nil, &TooLargeError{Name: name, Size: -1, Limit: max}
		}
	}
	return buf, nil
}

func openRetry(name string) (int, error) {
	for {
		fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}
