// Package reaper makes the calling process a child subreaper and reports the end of processes:
// exit statuses of its children (container init processes are reparented to it once the OCI
// runtime invocation that created them exits; until then a watched process that is a child of
// one of its children is simply waited for again), and the bare end of other processes
// (instances adopted from a supervisor that died), through pidfds.
//
// It reaps only processes it was asked to watch, plus zombies of unknown children that stayed
// zombies across two scans 5 s apart (orphans reparented to the subreaper), so it does not
// steal the exit of a child that os/exec is about to wait for.
package reaper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/internal/procstat"
)

// ExitStatus is what a watcher learned about a process's end.
type ExitStatus struct {
	// Known is false when the process was not the watcher's child (an adopted instance): the
	// exit was observed but its status is lost.
	Known  bool
	Status syscall.WaitStatus
}

// Reaper watches processes; create it with Start.
type Reaper struct {
	mu      sync.Mutex
	watched map[int]chan ExitStatus
	zombies map[int]bool // unknown zombies seen in the previous scan
	kick    chan struct{}
	self    int
}

// Start sets PR_SET_CHILD_SUBREAPER on the process and starts the reaping loop, which ends with ctx.
func Start(ctx context.Context) (*Reaper, error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("become child subreaper: %w", err)
	}
	r := &Reaper{watched: map[int]chan ExitStatus{}, zombies: map[int]bool{}, kick: make(chan struct{}, 1), self: os.Getpid()}
	sig := make(chan os.Signal, 16)
	signal.Notify(sig, syscall.SIGCHLD)
	go func() {
		defer signal.Stop(sig)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		scan := 0
		for {
			select {
			case <-ctx.Done():
				return
			case <-sig:
			case <-r.kick:
			case <-tick.C:
				scan++
				if scan%25 == 0 { // every 5 s
					r.reapOrphans()
				}
			}
			r.poll()
		}
	}()
	return r, nil
}

// Watch returns a channel that receives one ExitStatus when pid ends.
func (r *Reaper) Watch(pid int) <-chan ExitStatus {
	ch := make(chan ExitStatus, 1)
	r.mu.Lock()
	r.watched[pid] = ch
	r.mu.Unlock()
	select {
	case r.kick <- struct{}{}:
	default:
	}
	return ch
}

// poll collects every watched child that ended; watched processes that are not children are
// handed to a pidfd watcher.
func (r *Reaper) poll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for pid, ch := range r.watched {
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		switch {
		case err == nil && got == pid:
			ch <- ExitStatus{Known: true, Status: syscall.WaitStatus(ws)}
			delete(r.watched, pid)
		case errors.Is(err, unix.ECHILD):
			soon, now := r.adoptee(pid)
			if !soon {
				delete(r.watched, pid)
				go watchForeign(pid, ch)
			} else if now {
				// Moved after this poll's wait4: the SIGCHLD that would poll again may have
				// been this poll's own.
				select {
				case r.kick <- struct{}{}:
				default:
				}
			}
			// Otherwise still the invocation's child: its exit's SIGCHLD polls again.
		}
	}
}

// adoptee tells, for a watched process that wait4 says is not a child of this process, whether
// it is about to be one: its parent is a child of this process (the OCI runtime invocation
// that created it; this subreaper becomes its parent when the invocation exits), or it is
// already this process's child (the invocation exited between the wait4 and this look).
func (r *Reaper) adoptee(pid int) (soon, now bool) {
	for try := 0; try < 3; try++ {
		parent, ok := parentOf(pid)
		if !ok || parent <= 1 {
			return false, false
		}
		if parent == r.self {
			return true, true
		}
		if grand, ok := parentOf(parent); ok {
			return grand == r.self, false
		}
		// The parent ended between the two reads: look at the process's parent again.
	}
	return false, false
}

// parentOf reads a process's parent pid from /proc.
func parentOf(pid int) (int, bool) {
	st, err := procstat.Read(pid)
	return st.PPID, err == nil
}

// watchForeign waits for the end of a process that is not a child, through a pidfd.
func watchForeign(pid int, ch chan ExitStatus) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		ch <- ExitStatus{Known: false}
		return
	}
	defer unix.Close(fd)
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n > 0 {
			break
		}
	}
	ch <- ExitStatus{Known: false}
}

// reapOrphans reaps zombie children nobody watches that were already zombies on the previous
// scan (5 s earlier), i.e. orphans reparented to this subreaper. A child started with os/exec
// is waited for by its starter within microseconds of its exit, so it is never a zombie that
// long.
func (r *Reaper) reapOrphans() {
	kids := zombieChildren(r.self)
	r.mu.Lock()
	defer r.mu.Unlock()
	next := map[int]bool{}
	for _, pid := range kids {
		if _, ok := r.watched[pid]; ok {
			continue
		}
		if r.zombies[pid] {
			var ws unix.WaitStatus
			unix.Wait4(pid, &ws, unix.WNOHANG, nil)
			continue
		}
		next[pid] = true
	}
	r.zombies = next
}

// zombieChildren lists the zombie children of ppid from /proc.
func zombieChildren(ppid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := procstat.Read(pid)
		if err != nil || st.State != 'Z' || st.PPID != ppid {
			continue
		}
		out = append(out, pid)
	}
	return out
}
