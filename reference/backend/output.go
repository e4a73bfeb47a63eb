package backend

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/reference/logs"
)

// PipePath is the named pipe an instance whose log is at logPath writes its standard output
// and standard error to; the supervisor copies it into the log (package logs).
func PipePath(logPath string) string { return logPath + ".pipe" }

// outputs are the copiers of this process, by instance ID: each closes its channel once the
// instance's output ended and is all in its log.
type outputs struct {
	mu sync.Mutex
	m  map[string]chan struct{}
}

// openOutput makes the named pipe of the instance's log, starts copying it into the log, and
// returns the end the instance writes to: its standard output and standard error. The caller
// closes it once the OCI runtime has handed it to the instance.
//
// The instance's end is opened for reading and writing, so that the instance holds a reader
// of its own pipe: its writes never fail (EPIPE, SIGPIPE) while no supervisor reads — one
// lost and not yet adopted. They wait in the pipe, and block once it is full, until the
// adopting supervisor copies again (OutputWritten).
func (b *Backend) openOutput(id, logPath string) (*os.File, error) {
	pipe := PipePath(logPath)
	if err := os.Remove(pipe); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("log pipe: %w", err)
	}
	if err := unix.Mkfifo(pipe, 0o600); err != nil {
		return nil, fmt.Errorf("log pipe: %w", err)
	}
	w, err := os.OpenFile(pipe, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("log pipe: %w", err)
	}
	if _, err := b.copyOutput(id, logPath); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// OutputWritten returns a channel closed once everything instance id wrote to its standard
// output and standard error is in its log at logPath: its output ended (every process holding
// the pipe is gone) and was copied. An adopting supervisor's call starts copying where the lost
// one stopped; for an instance whose pipe is gone (ended, and copied, before) it is closed.
func (b *Backend) OutputWritten(id, logPath string) <-chan struct{} {
	done, err := b.copyOutput(id, logPath)
	if err != nil {
		closed := make(chan struct{})
		close(closed)
		return closed
	}
	return done
}

// copyOutput starts the copier of instance id unless this process runs it already.
func (b *Backend) copyOutput(id, logPath string) (<-chan struct{}, error) {
	b.out.mu.Lock()
	defer b.out.mu.Unlock()
	if done, ok := b.out.m[id]; ok {
		return done, nil
	}
	pipe := PipePath(logPath)
	// Non-blocking: the open returns at once, and reads wait in Go's poller, not in a thread.
	r, err := os.OpenFile(pipe, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("log pipe: %w", err)
	}
	w, err := logs.OpenWriter(logPath, b.LogLimits)
	if err != nil {
		r.Close()
		return nil, err
	}
	if b.out.m == nil {
		b.out.m = map[string]chan struct{}{}
	}
	done := make(chan struct{})
	b.out.m[id] = done
	go func() {
		// Output that cannot be written (a full disk) is dropped, never left in the pipe: the
		// instance must not block on its log.
		err := logs.Copy(r, w)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		r.Close()
		os.Remove(pipe) // ended: every writer has closed it
		if err != nil && b.Logf != nil {
			b.Logf("instance %s: %d bytes of its output not written to its log: %v", id, w.Lost, err)
		}
		b.out.mu.Lock()
		delete(b.out.m, id)
		b.out.mu.Unlock()
		close(done)
	}()
	return done, nil
}
