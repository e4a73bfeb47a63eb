//go:build unix

package validator

import (
	"errors"
	"io/fs"
	"syscall"
)

// readFile reads a file unless it is larger than max bytes (then tooBig is its size). It uses
// plain system calls: os.Open would also try to register every regular file with the network
// poller (four fcntl calls and a failing epoll_ctl per file), which costs more than the read
// itself when validating thousands of small manifests.
func readFile(name string, max int64) (data []byte, tooBig int64, err error) {
	fd, err := openRetry(name)
	if err != nil {
		return nil, 0, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, 0, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return nil, 0, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
	}
	size := st.Size
	if max > 0 && size > max {
		return nil, size, nil
	}
	// Read to EOF (the size is a hint: the file may be a pipe, or change while read).
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, 0, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
		if max > 0 && int64(len(buf)) > max {
			return nil, int64(len(buf)), nil
		}
	}
	return buf, 0, nil
}

func openRetry(name string) (int, error) {
	for {
		fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}
