//go:build unix

package validator

import (
	"errors"
	"io"
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
	data, _, err := readOrOpen(name, max, 0)
	return data, err
}

// readOrOpen is ReadFile, except that a regular file larger than streamOver bytes (when
// streamOver > 0), or an input of unknown size (a named pipe, a device) that turns out to be
// longer, is not read whole but returned open, to be read one document at a time; the caller
// closes it.
func readOrOpen(name string, max, streamOver int64) (data []byte, large io.ReadCloser, err error) {
	fd, err := openRetry(name)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer func() {
		if large == nil {
			syscall.Close(fd)
		}
	}()
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return nil, nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
	}
	size := int64(0)
	if st.Mode&syscall.S_IFMT == syscall.S_IFREG {
		size = st.Size
		if max > 0 && size > max {
			return nil, nil, &TooLargeError{Name: name, Size: size, Limit: max}
		}
		if streamOver > 0 && size > streamOver {
			return nil, &fdReader{fd: fd, name: name}, nil
		}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		// A pipe, a device, a socket: of unknown size, read whole only when it is small.
		r := &fdReader{fd: fd, name: name}
		data, rest, err := readHead(r, name, max, streamOver)
		if rest != nil {
			return nil, readCloser{rest, r}, nil
		}
		return data, nil, err
	}
	// Read to EOF (the size is a hint: the file may change while read).
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := buf[len(buf):cap(buf)]
		if max > 0 && int64(len(room)) > max+1-int64(len(buf)) {
			room = room[:max+1-int64(len(buf))]
		}
		n, err := readRetry(fd, room)
		if err != nil {
			return nil, nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
		if max > 0 && int64(len(buf)) > max {
			return nil, nil, &TooLargeError{Name: name, Size: -1, Limit: max}
		}
	}
	return buf, nil, nil
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

// fdReader reads an open file with plain system calls.
type fdReader struct {
	fd   int
	name string
}

func (r *fdReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := readRetry(r.fd, p)
	switch {
	case err != nil:
		return 0, &fs.PathError{Op: "read", Path: r.name, Err: err}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (r *fdReader) Close() error { return syscall.Close(r.fd) }

func readRetry(fd int, p []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, p)
		if !errors.Is(err, syscall.EINTR) {
			return n, err
		}
	}
}

func openRetry(name string) (int, error) {
	for {
		fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}
