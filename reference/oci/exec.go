package oci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"podspec.dev/podspec/internal/dirwatch"
	"podspec.dev/podspec/internal/procstat"
)

// runtimeGrace is how long Exec lets the runtime report after the exec'd tree was killed.
const runtimeGrace = 5 * time.Second

// execStartBound bounds how long a timed-out exec waits for the runtime to report the pid of
// the process it is starting, before it kills the runtime's process group instead.
const execStartBound = 30 * time.Second

// ErrExecTimeout is returned (wrapped) by Exec when the process tree was killed because its
// timeout expired.
var ErrExecTimeout = errors.New("exec timed out")

// ExecProcess describes a process to run inside a running container (probes, hooks,
// notifiers). Unset fields are taken from the container's own process in its bundle's
// config.json, so an exec'd process gets the container's user, capabilities, rlimits and
// no-new-privileges setting.
type ExecProcess struct {
	// Args is the command and its arguments; required.
	Args []string
	// Env is added to the container's environment (a KEY=VALUE here replaces the container's
	// value of KEY).
	Env []string
	// Cwd is the working directory; empty means the container's.
	Cwd string
	// Stdout and Stderr receive the process's output; nil means /dev/null. Stdin is /dev/null.
	Stdout, Stderr *os.File
	// Timeout bounds the process's run time; zero means only ctx bounds it. When it (or ctx)
	// expires, the whole process tree is killed (see Exec).
	Timeout time.Duration
	// Begun, when not nil, is called once the process has begun: when the runtime wrote its
	// pid file. runc writes it once the process is in the container's cgroup and namespaces
	// (its setns init closes its sync pipe right before it execs the command, and runc writes
	// the file when it reads the pipe's end), so that a SIGKILL to the container, its cgroup or
	// its pid namespace reaches the process from then on. Exec calls it at most once, before it
	// returns, and never for a process that did not begin.
	Begun func()
}

// Exec runs p in container id (`exec --process FILE --pid-file F ID`, in the foreground) and
// returns the process's exit code. The pid file tells when the process has begun (p.Begun) and,
// on timeout, which tree to kill: one watch of its directory (pidWatch) sees the runtime write
// it. A process killed by a signal gives 128+signal, as runc reports it.
//
// Telling a runtime failure from the process's own exit status: runc exits 255 both when it
// cannot start the process (missing binary, stopped container) and when the process exits 255.
// Exec reads the runtime's --log output: if it holds an error, the runtime failed and Exec
// returns an *Error (exit code -1); otherwise the status is the process's.
//
// Killing the whole tree on timeout: the runtime is started in a process group of its own.
// runc then starts the exec'd process as the leader of a new session and process group
// (pgid = its pid, read from --pid-file); crun leaves it in the runtime's group. On expiry
// Exec sends SIGKILL to the exec'd process's group (whichever it is; never the caller's) and
// to every descendant of the process found by walking /proc (children that changed their
// process group), repeating until none is left; the runtime then returns. A process that both
// left the group (setsid/setpgid) and was reparented away from the tree (a double-forked
// daemon adopted by the container's init) is out of reach without killing the container.
//
// A runtime whose exec'd processes have pids of the container's own (Features.SandboxPIDs:
// gVisor's runsc, whose processes are its sandbox kernel's and invisible on the host) is asked
// for the process's pid with --internal-pid-file, and its tree is found and killed through the
// runtime's `ps` and `kill --pid` (killSandboxTree). The runtime names no process group there,
// so a descendant already reparented away from the tree is out of reach, in the group or not.
func (r *Runtime) Exec(ctx context.Context, id string, p ExecProcess) (int, error) {
	if err := ValidateID(id); err != nil {
		return -1, fmt.Errorf("exec: %w", err)
	}
	if len(p.Args) == 0 {
		return -1, fmt.Errorf("exec in %s: no command", id)
	}
	proc, bundle, err := r.execSpec(ctx, id, p)
	if err != nil {
		return -1, err
	}
	// The process file and pid file live in the container's bundle, not in the host's temp
	// directory: a caller killed during the exec (a supervisor lost mid-probe) leaves them where
	// removing the container or its pod removes them too.
	dir, err := os.MkdirTemp(bundle, ".podspec-exec-")
	if err != nil {
		return -1, fmt.Errorf("exec in %s: %w", id, err)
	}
	defer os.RemoveAll(dir)
	files, err := r.writeExecFiles(ctx, id, dir, proc)
	if err != nil {
		return -1, err
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return -1, fmt.Errorf("exec in %s: %w", id, err)
	}
	defer devnull.Close()
	io := execIO(p, devnull)

	begun := watchPid(dir, files.pidFile, p.Begun)
	defer begun.end()

	// The runtime itself runs under a context that is never cancelled: on timeout we kill the
	// exec'd tree and let runc report and clean up, instead of killing runc and orphaning it.
	timeoutCtx := ctx
	if p.Timeout > 0 {
		var cancel context.CancelFunc
		timeoutCtx, cancel = context.WithTimeout(ctx, p.Timeout)
		defer cancel()
	}
	t := &execTimeout{r: r, ctx: ctx, expired: timeoutCtx, id: id, files: files, pid: begun, stop: make(chan struct{})}
	code, diag, err := r.run(context.WithoutCancel(ctx), invocation{op: "exec", id: id, io: io, globalFlags: true,
		args:    files.args,
		onStart: t.watch, newGroup: true})
	close(t.stop)
	t.wg.Wait()
	begun.end()
	if err != nil {
		return -1, err
	}
	if t.timedOut.Load() {
		if ctx.Err() != nil {
			return code, fmt.Errorf("exec in %s: %w", id, ctx.Err())
		}
		return code, fmt.Errorf("exec in %s: %w after %s", id, ErrExecTimeout, p.Timeout)
	}
	if diag != "" {
		return -1, &Error{Op: "exec", ID: id, ExitCode: code, Message: diag, kind: classify(diag)}
	}
	return code, nil
}

// execFiles are the files of one exec in its directory in the bundle, and the runtime's
// arguments that name them.
type execFiles struct {
	// args is the runtime's `exec` command line.
	args []string
	// pidFile is where the runtime writes the exec'd process's pid once it has begun.
	pidFile string
	// treePid is the file that names the root of the tree to kill on timeout: pidFile, or
	// for a runtime with sandbox pids (Features.SandboxPIDs) its --internal-pid-file.
	treePid string
	// sandbox is whether the runtime's exec'd processes have pids of the container's own.
	sandbox bool
}

// writeExecFiles writes the process file proc into dir and returns the runtime's arguments
// for an exec of it in container id.
func (r *Runtime) writeExecFiles(ctx context.Context, id, dir string, proc *specs.Process) (execFiles, error) {
	procFile := filepath.Join(dir, "process.json")
	f := execFiles{pidFile: filepath.Join(dir, "pid")}
	f.args = []string{"exec", "--process", procFile, "--pid-file", f.pidFile}
	f.treePid = f.pidFile
	feat, err := r.Features(ctx)
	f.sandbox = err == nil && feat.SandboxPIDs
	if f.sandbox {
		f.treePid = filepath.Join(dir, "internal-pid")
		f.args = append(f.args, "--internal-pid-file", f.treePid)
	}
	f.args = append(f.args, id)
	b, err := json.Marshal(proc)
	if err != nil {
		return execFiles{}, fmt.Errorf("exec in %s: encode process: %w", id, err)
	}
	if err := os.WriteFile(procFile, b, 0o600); err != nil {
		return execFiles{}, fmt.Errorf("exec in %s: %w", id, err)
	}
	return f, nil
}

// execIO is the exec'd process's standard I/O: stdin /dev/null, stdout and stderr p's, or
// /dev/null when p leaves them nil.
func execIO(p ExecProcess, devnull *os.File) IO {
	io := IO{Stdin: devnull, Stdout: p.Stdout, Stderr: p.Stderr}
	if io.Stdout == nil {
		io.Stdout = devnull
	}
	if io.Stderr == nil {
		io.Stderr = devnull
	}
	return io
}

// execTimeout kills an exec'd process tree when the exec's timeout (or the caller's context)
// expires, and tells whether it did.
type execTimeout struct {
	r *Runtime
	// ctx is the caller's context; expired is done when the exec's time is up.
	ctx, expired context.Context
	id           string
	files        execFiles
	// pid tells when the runtime wrote the pid file.
	pid *pidWatch
	// stop is closed when the runtime has returned.
	stop     chan struct{}
	wg       sync.WaitGroup
	timedOut atomic.Bool
}

// watch starts the watcher of the runtime process runtimeProc (the invocation's onStart).
func (t *execTimeout) watch(runtimeProc *os.Process) {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		select {
		case <-t.stop:
			return
		case <-t.expired.Done():
		}
		t.timedOut.Store(true)
		pid, stopped := t.waitPid()
		if stopped {
			return
		}
		t.kill(pid, runtimeProc)
		// The runtime returns once the process is gone; if it hangs anyway (a frozen
		// container), do not wait for it forever.
		select {
		case <-t.stop:
		case <-time.After(runtimeGrace):
			_ = runtimeProc.Kill()
		}
	}()
}

// waitPid waits for the runtime to have written the pid file, and returns the pid of the tree's
// root (0 if none came within execStartBound), or stopped if the runtime returned meanwhile. On
// a loaded machine the process can start seconds after the timeout, and runc's child goes on
// starting it even when runc itself is killed: killing runc's group before the pid is known
// would leave the process running. The bound is for a runtime that neither starts the process
// nor returns. A runtime with sandbox pids (runsc) writes its --internal-pid-file, the tree's
// root, before the --pid-file, so that the one is complete once the other holds a pid.
func (t *execTimeout) waitPid() (pid int, stopped bool) {
	select {
	case <-t.pid.begun:
		return readPidFile(t.files.treePid), false
	case <-t.stop:
		return 0, true
	case <-time.After(execStartBound):
		return 0, false
	}
}

// kill kills the exec'd tree rooted at pid, or with no pid the runtime's process group.
func (t *execTimeout) kill(pid int, runtimeProc *os.Process) {
	if pid > 0 && t.files.sandbox {
		t.r.killSandboxTree(context.WithoutCancel(t.ctx), t.id, pid)
	} else if pid > 0 {
		// The exec'd process leads its own group (runc: a new session) or shares the
		// runtime's group (crun); both are groups of their own, never the caller's.
		// The group is read before, and killed after, the tree: a process killed
		// before its tree was collected has its children reparented out of reach.
		pgid, err := syscall.Getpgid(pid)
		KillProcessTree(pid)
		if err == nil && pgid != syscall.Getpgrp() {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	} else {
		// No pid file: kill the runtime's group (the runtime and what it forked).
		_ = syscall.Kill(-runtimeProc.Pid, syscall.SIGKILL)
	}
}

// readPidFile returns the pid a runtime wrote to path, or 0 while it wrote none (or an
// incomplete one).
func readPidFile(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// pidPoll is how often a pidWatch reads the pid file when the kernel gives no watch of its
// directory (the inotify limits: at scale every supervisor's probes exec at once).
const pidPoll = 10 * time.Millisecond

// pidWatch tells when the runtime has written an exec's pid file: begun is closed, and report
// (if not nil) called once, when the file holds a pid. It reads the file after each change in
// its directory that an inotify watch reports (dirwatch.Changes), set before the runtime
// starts so that no write is missed; when the kernel gives no watch, it reads the file every
// pidPoll. Either way it ends with the runtime (end).
type pidWatch struct {
	path   string
	report func()
	once   sync.Once
	begun  chan struct{}
	stop   chan struct{}
	done   chan struct{}
	// changed receives after a change in the directory; nil: poll. unwatch ends the watch.
	changed <-chan struct{}
	unwatch func()
}

// watchPid watches dir for the pid file at path (in dir) and calls report once it holds a pid.
func watchPid(dir, path string, report func()) *pidWatch {
	w := &pidWatch{path: path, report: report, begun: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	name := filepath.Base(path)
	// runc writes the file under a temporary name and renames it into place; crun writes it.
	w.changed, w.unwatch, _ = dirwatch.Changes(dir, func(ev fsnotify.Event) bool {
		return filepath.Base(ev.Name) == name && ev.Has(fsnotify.Create|fsnotify.Write)
	})
	go w.run()
	return w
}

func (w *pidWatch) run() {
	defer close(w.done)
	var poll <-chan time.Time
	for {
		if w.seen() {
			return
		}
		if w.changed == nil {
			poll = time.After(pidPoll)
		}
		select {
		case <-w.stop:
			return
		case <-w.changed:
		case <-poll:
		}
	}
}

// seen reports whether the pid file holds a pid, and then reports that the process began.
func (w *pidWatch) seen() bool {
	if readPidFile(w.path) <= 0 {
		return false
	}
	w.once.Do(func() {
		close(w.begun)
		if w.report != nil {
			w.report()
		}
	})
	return true
}

// end stops the watch once the runtime returned: a pid file written and not seen yet is
// reported now. It is idempotent.
func (w *pidWatch) end() {
	select {
	case <-w.stop:
		return
	default:
	}
	close(w.stop)
	<-w.done
	w.unwatch()
	w.seen()
}

// execSpec builds the process of an exec from the container's bundle config and p, and returns
// it with the bundle's directory.
func (r *Runtime) execSpec(ctx context.Context, id string, p ExecProcess) (*specs.Process, string, error) {
	st, err := r.State(ctx, id)
	if err != nil {
		return nil, "", fmt.Errorf("exec in %s: %w", id, err)
	}
	if st.Status != StatusRunning && st.Status != StatusCreated {
		return nil, "", fmt.Errorf("exec in %s: container is %s: %w", id, st.Status, ErrNotRunning)
	}
	b, err := os.ReadFile(filepath.Join(st.Bundle, "config.json"))
	if err != nil {
		return nil, "", fmt.Errorf("exec in %s: read bundle config: %w", id, err)
	}
	var spec specs.Spec
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, "", fmt.Errorf("exec in %s: decode bundle config: %w", id, err)
	}
	proc := specs.Process{}
	if spec.Process != nil {
		proc = *spec.Process
	}
	proc.Terminal = false
	proc.ConsoleSize = nil
	proc.Args = append([]string(nil), p.Args...)
	proc.Env = mergeEnv(proc.Env, p.Env)
	if p.Cwd != "" {
		proc.Cwd = p.Cwd
	}
	if proc.Cwd == "" {
		proc.Cwd = "/"
	}
	// The exec'd process must never lower the OOM score (no CAP_SYS_RESOURCE on many hosts).
	proc.OOMScoreAdj = nil
	return &proc, st.Bundle, nil
}

// mergeEnv returns base with every KEY=VALUE of extra applied (replacing or appending).
func mergeEnv(base, extra []string) []string {
	out := append([]string(nil), base...)
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		replaced := false
		for i, old := range out {
			if ok, _, _ := strings.Cut(old, "="); ok == k {
				out[i] = kv
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, kv)
		}
	}
	return out
}

// KillProcessTree sends SIGKILL to pid, to the process group it leads and to every descendant
// of pid (found through /proc/*/stat parent links). The tree is collected first while its
// members are stopped (SIGSTOP, walking again until two walks find no new descendant, for at
// most one second): once a process is killed its children are reparented away from the tree,
// and a stopped process cannot fork a new one. Then every member is killed. It is best
// effort: processes that already exited are ignored.
func KillProcessTree(pid int) {
	deadline := time.Now().Add(time.Second)
	_ = syscall.Kill(pid, syscall.SIGSTOP)
	tree := map[int]bool{}
	// Two walks in a row, a moment apart, must find nothing new: a process that was forking
	// when its SIGSTOP came shows its child only once the fork returned.
	for quiet := 0; quiet < 2 && time.Now().Before(deadline); {
		quiet++
		for _, c := range descendants(pid) {
			if !tree[c] {
				tree[c] = true
				quiet = 0
				_ = syscall.Kill(c, syscall.SIGSTOP)
			}
		}
		if quiet == 1 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for c := range tree {
		_ = syscall.Kill(c, syscall.SIGKILL)
	}
}

// sandboxCollectBound bounds how long killSandboxTree collects a tree: each walk and each
// signal is a runtime invocation (about 0.15 s for runsc on an idle 2-CPU VM).
const sandboxCollectBound = 5 * time.Second

// killSandboxTree is KillProcessTree through the runtime's own verbs, for a runtime that
// numbers exec'd processes in the container (Features.SandboxPIDs): pid and the tree under it
// are found in `ps ID` (its PID and PPID columns, pids of the container), each member is
// stopped (`kill --pid P ID SIGSTOP`) as soon as it is found, so that it can neither fork nor
// leave the tree while it is collected, until two walks find nothing new, and then every
// member is killed with SIGKILL. A descendant in a session of its own is found through its
// parent like any other; one whose parent had died before it was found (reparented to the
// container's init) is out of reach. Best effort: a failed walk ends the collection, processes
// that already exited are ignored.
func (r *Runtime) killSandboxTree(ctx context.Context, id string, pid int) {
	// signal sends sig to each of pids at once: each is a runtime invocation of its own.
	signal := func(sig syscall.Signal, pids ...int) {
		var wg sync.WaitGroup
		for _, p := range pids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = r.simple(ctx, "kill", id, "kill", "--pid", strconv.Itoa(p), id, strconv.Itoa(int(sig)))
			}()
		}
		wg.Wait()
	}
	tree := []int{pid}
	signal(syscall.SIGSTOP, pid)
	seen := map[int]bool{pid: true}
	deadline := time.Now().Add(sandboxCollectBound)
	for quiet := 0; quiet < 2 && time.Now().Before(deadline); {
		quiet++
		children, err := r.sandboxChildren(ctx, id)
		if err != nil {
			break
		}
		var found []int
		for _, c := range subtree(children, pid) {
			if !seen[c] {
				seen[c] = true
				found = append(found, c)
			}
		}
		if len(found) > 0 {
			quiet = 0
			tree = append(tree, found...)
			signal(syscall.SIGSTOP, found...)
		}
	}
	signal(syscall.SIGKILL, tree...)
}

// sandboxChildren returns the children of each process of container id, read from the
// runtime's `ps ID` table by its PID and PPID columns (runsc's `ps --format json` lists only
// pids).
func (r *Runtime) sandboxChildren(ctx context.Context, id string) (map[int][]int, error) {
	out, err := r.output(ctx, "ps", id, true, "ps", id)
	if err != nil {
		return nil, err
	}
	return parsePsTable(out)
}

// parsePsTable returns the children of each process listed in a ps table whose header names
// PID and PPID columns (the columns before them hold no spaces).
func parsePsTable(out []byte) (map[int][]int, error) {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	pidCol, ppidCol := -1, -1
	for i, h := range strings.Fields(lines[0]) {
		switch h {
		case "PID":
			pidCol = i
		case "PPID":
			ppidCol = i
		}
	}
	if pidCol < 0 || ppidCol < 0 {
		return nil, fmt.Errorf("ps: no PID and PPID columns in %q", lines[0])
	}
	children := map[int][]int{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) <= max(pidCol, ppidCol) {
			continue
		}
		p, err1 := strconv.Atoi(f[pidCol])
		pp, err2 := strconv.Atoi(f[ppidCol])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("ps: unreadable line %q", l)
		}
		children[pp] = append(children[pp], p)
	}
	return children, nil
}

// subtree returns every descendant of pid in children (parent -> children).
func subtree(children map[int][]int, pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// descendants returns the pids of all living descendants of pid.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := procstat.Read(n)
		if err != nil || st.State == 'Z' {
			continue
		}
		ppid := st.PPID
		children[ppid] = append(children[ppid], n)
	}
	return subtree(children, pid)
}
