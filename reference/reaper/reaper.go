// Package reaper makes the calling process a child subreaper and reports the end of processes:
// exit statuses of its children (container init processes are reparented to it once the OCI
// runtime invocation that created them exits; until then a watched process that is a child of
// one of its children is simply waited for again), and the bare end of other processes
// (instances adopted from a supervisor that died), through pidfds.
//
// Every child of the process is one of three kinds, and the reaper tells them apart without
// guessing:
//
//   - a process it was asked to watch (Watch): reaped, its status delivered to the watcher;
//   - a process this process started with os/exec and waits for itself: started through
//     StartCmd (RunCmd, Output, CombinedOutput), which records its pid until WaitCmd has reaped
//     it; the reaper never touches it, so os/exec's Wait always gets its own child's status;
//   - anything else: an orphan reparented to this subreaper (runsc's gofer, a daemon a container
//     left behind), reaped as soon as SIGCHLD reports it. Its status is kept for a while, so a
//     Watch of that pid that comes after the reaping (a container process that died between the
//     runtime invocation's exit and the engine's Watch) still gets it.
//
// Recording a started child happens while StartCmd holds a read lock that every orphan pass
// takes for writing, so no pass sees a child of os/exec that is not recorded yet. Every process
// start in a program that runs a Reaper must go through StartCmd (TestSupervisorStartsChildren
// OnlyThroughStartCmd holds the supervisor's packages to it).
package reaper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

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

// rememberOrphans is how many reaped orphans' statuses are kept for a late Watch.
const rememberOrphans = 256

// Reaper watches processes; create it with Start.
type Reaper struct {
	mu      sync.Mutex
	watched map[int]chan ExitStatus
	orphans map[int]syscall.WaitStatus // reaped orphans' statuses, for a Watch that comes late
	order   []int                      // the keys of orphans, oldest first
	kick    chan struct{}
	self    int
	// onOrphan, when set (tests), is called with each orphan reaped.
	onOrphan func(pid int, ws syscall.WaitStatus)
}

// Start sets PR_SET_CHILD_SUBREAPER on the process and starts the reaping loop, which ends with ctx.
func Start(ctx context.Context) (*Reaper, error) {
	return start(ctx, nil)
}

func start(ctx context.Context, onOrphan func(int, syscall.WaitStatus)) (*Reaper, error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("become child subreaper: %w", err)
	}
	r := &Reaper{watched: map[int]chan ExitStatus{}, orphans: map[int]syscall.WaitStatus{},
		kick: make(chan struct{}, 1), self: os.Getpid(), onOrphan: onOrphan}
	sig := make(chan os.Signal, 16)
	signal.Notify(sig, syscall.SIGCHLD)
	go func() {
		defer signal.Stop(sig)
		for {
			// A first pass at once: orphans reparented before Start.
			r.reapOrphans()
			r.poll()
			select {
			case <-ctx.Done():
				return
			case <-sig:
			case <-r.kick:
			}
		}
	}()
	return r, nil
}

// Watch returns a channel that receives one ExitStatus when pid ends.
func (r *Reaper) Watch(pid int) <-chan ExitStatus {
	ch := make(chan ExitStatus, 1)
	r.mu.Lock()
	if ws, ok := r.orphans[pid]; ok {
		r.forgetLocked(pid)
		// The status is this pid's only while no other process has taken the pid since.
		if unix.Kill(pid, 0) == unix.ESRCH {
			r.mu.Unlock()
			ch <- ExitStatus{Known: true, Status: ws}
			return ch
		}
	}
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

// reapOrphans reaps every child that is neither watched nor started through StartCmd, i.e.
// orphans reparented to this subreaper, keeping their statuses for a late Watch. It holds the
// start lock for writing, so every os/exec child that exists is recorded.
func (r *Reaper) reapOrphans() {
	starting.Lock()
	defer starting.Unlock()
	kids := children(r.self)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, pid := range kids {
		if _, ok := r.watched[pid]; ok || owned(pid) {
			continue
		}
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		if err != nil || got != pid {
			continue // still running; its exit's SIGCHLD comes back here
		}
		r.rememberLocked(pid, syscall.WaitStatus(ws))
		if r.onOrphan != nil {
			r.onOrphan(pid, syscall.WaitStatus(ws))
		}
	}
}

func (r *Reaper) rememberLocked(pid int, ws syscall.WaitStatus) {
	if _, ok := r.orphans[pid]; ok {
		r.forgetLocked(pid)
	}
	if len(r.order) >= rememberOrphans {
		delete(r.orphans, r.order[0])
		r.order = r.order[1:]
	}
	r.orphans[pid] = ws
	r.order = append(r.order, pid)
}

func (r *Reaper) forgetLocked(pid int) {
	delete(r.orphans, pid)
	for i, p := range r.order {
		if p == pid {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
}

// children lists the children of process self: the children files of its threads
// (/proc/self/task/TID/children), read again while the set of threads changes (a thread's
// children move to another thread when it exits, without a SIGCHLD); the parent fields of every
// process in /proc when the kernel has no children files.
func children(self int) []int {
	for {
		tids, err := tasks()
		if err != nil {
			return childrenByScan(self)
		}
		var out []int
		ok := true
		for _, tid := range tids {
			b, err := os.ReadFile("/proc/self/task/" + tid + "/children")
			if errors.Is(err, os.ErrNotExist) && tid == strconv.Itoa(self) {
				return childrenByScan(self) // no CONFIG_PROC_CHILDREN
			}
			if err != nil {
				ok = false // the thread ended while it was read
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil {
					out = append(out, pid)
				}
			}
		}
		again, err := tasks()
		if ok && err == nil && slices.Equal(tids, again) {
			return out
		}
	}
}

func tasks() ([]string, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ents))
	for i, e := range ents {
		out[i] = e.Name()
	}
	return out, nil
}

// childrenByScan lists the children of ppid from the parent fields in /proc.
func childrenByScan(ppid int) []int {
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
		if err != nil || st.PPID != ppid {
			continue
		}
		out = append(out, pid)
	}
	return out
}
