package supervisor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/reference/reaper"
	"podspec.dev/podspec/reference/store"
)

// Spawn starts a detached supervisor for the pod — argv is the command line of the podspec
// binary's hidden `supervise` verb — in a new session with its output appended to the pod's
// supervisor log, and waits until the pod has a live supervisor (this one or one another
// command started) or is terminal.
func Spawn(ctx context.Context, pod *store.Pod, argv []string) error {
	logf, err := os.OpenFile(pod.Path(store.SupervisorLog), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("start supervisor of %s: %w", pod.Name, err)
	}
	defer logf.Close()
	exited, err := start(argv, logf, nil)
	if err != nil {
		return fmt.Errorf("start supervisor of %s: %w", pod.Name, err)
	}
	return waitReady(ctx, pod, exited, nil)
}

// PendingPod is the pod argument of a supervisor started by Prepare: it reads its pod's name
// from file descriptor 3.
const PendingPod = "-"

// Pending is a supervisor process started before its pod exists (Prepare).
type Pending struct {
	name   *os.File // the write end of the supervisor's descriptor 3
	exited <-chan error
	early  *earlyOutput
}

// earlyOutput collects what a prepared supervisor writes before it has a pod whose log could
// hold it (it then points its output at that log, which ends this pipe): the reason it exits
// when it cannot even open its pod.
type earlyOutput struct {
	done chan struct{}
	text string
}

func readEarly(r *os.File) *earlyOutput {
	o := &earlyOutput{done: make(chan struct{})}
	go func() {
		defer close(o.done)
		defer r.Close()
		b, _ := io.ReadAll(io.LimitReader(r, 4096))
		io.Copy(io.Discard, r)
		o.text = strings.TrimSpace(string(b))
	}()
	return o
}

// String returns the output once the supervisor has exited (its end of the pipe is closed).
func (o *earlyOutput) String() string {
	select {
	case <-o.done:
		return o.text
	case <-time.After(time.Second):
		return ""
	}
}

// Prepare starts a detached supervisor before the pod it will supervise exists, so that its
// process start overlaps the creating command's validation instead of following it: argv is
// the `supervise` command line with PendingPod as the pod. The supervisor waits until Start
// names its pod; Cancel (or the end of this process) makes it exit without doing anything.
func Prepare(argv []string) (*Pending, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start supervisor: %w", err)
	}
	defer r.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("start supervisor: %w", err)
	}
	exited, err := start(argv, outW, r)
	outW.Close()
	if err != nil {
		w.Close()
		outR.Close()
		return nil, fmt.Errorf("start supervisor: %w", err)
	}
	return &Pending{name: w, exited: exited, early: readEarly(outR)}, nil
}

// Start hands the supervisor its pod, which must exist by now, and waits as Spawn does until
// the pod has a live supervisor or is terminal.
func (p *Pending) Start(ctx context.Context, pod *store.Pod) error {
	if p.name == nil {
		return fmt.Errorf("start supervisor of %s: already started or cancelled", pod.Name)
	}
	_, err := fmt.Fprintln(p.name, pod.Name)
	p.name.Close()
	p.name = nil
	if err != nil {
		return fmt.Errorf("start supervisor of %s: %w", pod.Name, err)
	}
	return waitReady(ctx, pod, p.exited, p.early)
}

// Cancel tells a supervisor that was never started that there is no pod: it exits. Cancel
// after Start does nothing.
func (p *Pending) Cancel() {
	if p.name != nil {
		p.name.Close()
		p.name = nil
	}
}

// AwaitPod is the first thing a supervisor started with PendingPod does: it reads the name of
// its pod from descriptor 3. ok is false when the creating command gave up (end of file): the
// supervisor then exits without touching anything.
func AwaitPod() (name string, ok bool, err error) {
	f := os.NewFile(3, "pod name")
	if f == nil {
		return "", false, errors.New("no pod name descriptor")
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 1024)).ReadString('\n')
	if err == io.EOF && line == "" {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read the pod name: %w", err)
	}
	return strings.TrimSuffix(line, "\n"), true, nil
}

// start starts argv detached (new session, working directory /, stdin /dev/null, stdout and
// stderr to out or /dev/null, podName as descriptor 3 when set) and returns a channel that
// receives its exit.
func start(argv []string, out, podName *os.File) (<-chan error, error) {
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer devnull.Close()
	if out == nil {
		out = devnull
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, out, out
	if podName != nil {
		cmd.ExtraFiles = []*os.File{podName}
	}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := reaper.StartCmd(cmd); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- reaper.WaitCmd(cmd) }()
	return exited, nil
}

// waitReady waits until the pod has a live supervisor that answers, or is terminal; exited
// reports the end of the supervisor process this command started.
func waitReady(ctx context.Context, pod *store.Pod, exited <-chan error, early fmt.Stringer) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		if ready(ctx, pod) {
			return nil
		}
		select {
		case err := <-exited:
			if ready(ctx, pod) || terminal(pod) {
				return nil
			}
			if err == nil && pod.SupervisorAlive() {
				// Ours found the pod held by a supervisor another command started at the same
				// moment (two verbs adopting a pod after a supervisor's loss) and left: wait
				// for that one to answer.
				exited = nil
				continue
			}
			why := tail(pod.Path(store.SupervisorLog))
			if why == "" && early != nil {
				why = early.String()
			}
			return fmt.Errorf("supervisor of %s exited (%v): %s", pod.Name, err, why)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("supervisor of %s did not come up: %s", pod.Name, tail(pod.Path(store.SupervisorLog)))
		}
	}
}

func ready(ctx context.Context, pod *store.Pod) bool {
	if !pod.SupervisorAlive() {
		return false
	}
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err := Call(cctx, pod, &Request{Op: OpPing})
	return err == nil
}

func terminal(pod *store.Pod) bool {
	st, err := pod.ReadState()
	return err == nil && st.Pod.Status != nil && st.Pod.Status.FinishedAt != nil
}

func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return s
}

// Ensure makes sure a pod that is not terminal has a live supervisor: if its supervisor died,
// it starts a new one (which adopts the pod) with the command line argv returns. It reports
// whether it started one. Every verb calls it, so the usual case — a live supervisor — costs
// one lock test: no state read, and argv (which reads the supervisor binary's build
// information) is not asked for.
//
// A terminal pod gets no supervisor, so Ensure does for it what an adopter would: it appends
// the events its last supervisor recorded only in the terminal state (that supervisor was lost
// between the state write and the events write, and its last batch, with PodFinished, would be
// lost); recovered says how many. A failure to write them is ErrEventsNotRecovered: they stay
// in the state, and the next verb tries again.
func Ensure(ctx context.Context, pod *store.Pod, argv func() ([]string, error)) (started bool, recovered int, err error) {
	if pod.SupervisorAlive() {
		return false, 0, nil
	}
	st, err := pod.ReadState()
	if err != nil {
		return false, 0, err
	}
	if st.Pod.Status != nil && st.Pod.Status.FinishedAt != nil {
		n, err := recoverFinalEvents(pod, st)
		if err != nil {
			return false, 0, fmt.Errorf("%w of pod %s: %v", ErrEventsNotRecovered, pod.Name, err)
		}
		return false, n, nil
	}
	if st.Supervisor.PID == 0 && st.Creator.PID != 0 && procstat.StartTime(st.Creator.PID) == st.Creator.StartTime {
		// Never supervised: the creating command is alive and about to start the first
		// supervisor. A creator that is gone (killed after the pod was created) left the
		// pod to the first verb that touches it, which starts the supervisor in its place.
		return false, 0, nil
	}
	args, err := argv()
	if err != nil {
		return false, 0, err
	}
	if err := Spawn(ctx, pod, args); err != nil {
		return false, 0, err
	}
	return true, 0, nil
}

// ErrEventsNotRecovered: the events a lost supervisor recorded only in a terminal pod's state
// could not be appended to its events file (they stay in the state).
var ErrEventsNotRecovered = errors.New("could not append the events the last supervisor recorded only in the state")

// recoverFinalEvents appends to a terminal pod's events file the events of its state's
// UnwrittenEvents that the file lacks. It holds the supervisor lock meanwhile, as the file's one
// writer; when another process holds it (a supervisor that is ending, or another verb doing
// this), that process writes them.
func recoverFinalEvents(pod *store.Pod, st *store.State) (int, error) {
	if !pod.LacksEvents(st.UnwrittenEvents) {
		return 0, nil
	}
	lock, err := pod.TrySupervisorLock()
	if err != nil {
		if errors.Is(err, store.ErrBusy) {
			return 0, nil
		}
		return 0, err
	}
	defer lock.Unlock()
	if st, err = pod.ReadState(); err != nil {
		return 0, err
	}
	events, err := pod.OpenEventLog()
	if err != nil {
		return 0, err
	}
	n, err := events.Recover(st.UnwrittenEvents)
	if cerr := events.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return n, err
}

// ErrNoSupervisor is returned when a pod that is not terminal has no supervisor to answer.
var ErrNoSupervisor = errors.New("pod has no live supervisor")

// Finished reports whether a pod whose state st was just read is terminal as `wait` promises:
// its status finished and its PodFinished recorded (contract 4.4, 7). A supervisor writes the
// terminal state before the events that describe it, so between the two writes the state is
// finished while the events file still lacks PodFinished; then the pod is finished only once
// they are written, or once no supervisor is left to write them (Ensure has then appended them,
// or could not, and said so).
func Finished(pod *store.Pod, st *store.State) bool {
	if st.Pod.Status == nil || st.Pod.Status.FinishedAt == nil {
		return false
	}
	return !pod.LacksEvents(st.UnwrittenEvents) || !pod.SupervisorAlive()
}
