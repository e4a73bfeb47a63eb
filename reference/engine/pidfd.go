package engine

import (
	"context"
	"errors"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/internal/procstat"
)

// pidFD is a pidfd of an instance's init process. A signal sent through it reaches that
// process or nobody, never a later process that reused the pid, and costs one system call
// instead of an OCI runtime process. It is safe for concurrent use: a signal being sent keeps
// the descriptor open, so closing it never lets a signal reach whatever reuses the number.
type pidFD struct {
	mu sync.Mutex
	fd int // -1 once closed
}

// errPidFDClosed: the instance's pidfd was closed (its exit was handled, or its supervision
// ended).
var errPidFDClosed = errors.New("pidfd closed")

// errProcessGone: the instance's process has ended; its exit will be (or was) observed.
var errProcessGone = errors.New("the process has ended")

// openPidFD opens a pidfd of pid, or returns nil when it cannot (the signals then go through
// the backend). The caller makes sure pid is still the instance's process: its own unreaped
// child, or a process whose start time it checks after the open.
func openPidFD(pid int) *pidFD {
	if pid <= 0 {
		return nil
	}
	fd, err := unix.PidfdOpen(pid, 0) // close-on-exec
	if err != nil {
		return nil
	}
	return &pidFD{fd: fd}
}

// send sends sig through the pidfd: nil when sent, ESRCH when the process has ended,
// errPidFDClosed after close, another error when the call failed. A nil pidFD has none.
func (p *pidFD) send(sig syscall.Signal) error {
	if p == nil {
		return errPidFDClosed
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fd < 0 {
		return errPidFDClosed
	}
	return unix.PidfdSendSignal(p.fd, sig, nil, 0)
}

// ended reports whether the process has ended (its pidfd is readable then, whether or not it
// was reaped), or its exit was handled (the pidfd closed); false when it cannot tell (no
// pidfd, or the poll failed).
func (p *pidFD) ended() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fd < 0 {
		return true
	}
	fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0 && fds[0].Revents&unix.POLLIN != 0
}

// instanceExiting reports whether the instance's process has ended or its exit has begun: /proc
// shows it exiting (a PID namespace's init stays in its exit, no zombie yet, until the
// namespace's other processes, such as a hook being run in it, have been reaped), or its pidfd
// is readable. /proc is read first: while the pidfd is not readable the pid is still the
// instance's.
func instanceExiting(inst *instance) bool {
	if inst.pid > 0 {
		if st, err := procstat.Read(inst.pid); err == nil && st.Exiting() {
			return true
		}
	}
	return inst.pidfd.ended()
}

// close closes the pidfd once the instance's exit was handled (or its supervision ended); it
// is idempotent, and a nil pidFD has nothing to close.
func (p *pidFD) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fd >= 0 {
		unix.Close(p.fd)
		p.fd = -1
	}
}

// sendSignal sends sig to the instance's init process: through its pidfd, and through the
// backend (the OCI runtime's kill) when it has none or the pidfd call failed for another
// reason than the end of the process. An adopted instance without a pidfd is first signalled
// by pid (the OCI runtime may no longer know the container if its state was lost). It returns
// errProcessGone when the process has ended: nothing to do, its exit is observed anyway.
//
// Every signal the engine sends to an instance goes through here, after its SignalSent (if
// any) was committed: the record comes first, so an adopting supervisor never misses a signal
// that was sent.
func (e *Engine) sendSignal(ctx context.Context, inst *instance, sig syscall.Signal) error {
	err := inst.pidfd.send(sig)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ESRCH):
		return errProcessGone
	case err == errPidFDClosed && inst.pidfd != nil:
		// Closed, not missing: the instance's exit has been handled (a signal that raced
		// with it, e.g. the stop sequence's while the container's goroutine records the
		// exit). Nothing to signal; the OCI runtime would only answer "not running".
		return errProcessGone
	case err != errPidFDClosed:
		e.logf("signal %s %s through its pidfd: %v; sending it through the runtime", inst.id, sig, err)
	}
	if inst.adopted && inst.pidfd == nil && syscall.Kill(inst.pid, sig) == nil {
		return nil
	}
	return e.be.Signal(ctx, inst.id, sig)
}
