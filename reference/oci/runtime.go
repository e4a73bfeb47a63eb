// Package oci drives an OCI runtime command-line tool (runc by default, crun or any other CLI
// with the same verbs) and writes the bundles it runs.
//
// The package is a thin, stateless wrapper: every method runs the runtime binary once and turns
// its result into Go values and typed errors. It does not wait for container processes, keep
// state of its own, or decide lifecycle policy; the caller (the pod supervisor) does that.
//
// Rules the wrapper follows, learnt from runc on the project's machines:
//
//   - The runtime's own diagnostics are always written to an unlinked temporary file (global
//     --log /proc/<pid>/fd/<n> --log-format json; nothing is left behind even if the caller is
//     killed), never read from a pipe: `runc create` hands its stdio to the
//     container, so a pipe would stay open for the container's whole life.
//   - The runtime never reports a container's exit code. Create returns the container's host
//     pid (from --pid-file); the caller must be its waiter (a parent, or a child subreaper set
//     with prctl(PR_SET_CHILD_SUBREAPER) that calls wait4 on that pid).
//   - State of a container that does not exist comes back as an error matching ErrNotFound.
package oci

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"

	"podspec.dev/podspec/internal/atomicfile"
	"podspec.dev/podspec/reference/reaper"
)

// DefaultBinary is the runtime used when Runtime.Binary is empty.
const DefaultBinary = "runc"

// Errors returned (wrapped) by Runtime methods; test with errors.Is.
var (
	// ErrNotFound means the runtime has no container with the given id.
	ErrNotFound = errors.New("container not found")
	// ErrNotRunning means the operation needs a running (or created) container.
	ErrNotRunning = errors.New("container not running")
	// ErrUnavailable means the runtime binary is missing or does not work.
	ErrUnavailable = errors.New("OCI runtime unavailable")
	// ErrExists means a container with the given id already exists.
	ErrExists = errors.New("container already exists")
)

// Runtime is one OCI runtime CLI and its state directory. The zero value runs "runc" with its
// default state directory (/run/runc).
type Runtime struct {
	// Binary is the runtime executable, a path or a name looked up in PATH. Empty means runc.
	Binary string
	// Root is the runtime's state directory (global --root flag). Empty means the runtime's
	// default. Pods of one podspec installation share one Root.
	Root string
	// FeaturesFile, when set, keeps the runtime's probed Features across processes.
	FeaturesFile string

	// features, when set, is used instead of probing (the probe's own containers).
	features *Features
}

// IO is the standard streams of a container's or exec'd process. A nil file means /dev/null.
// The files are handed to the process; the runtime does not read from or write to them
// (except that the runtime may print its own fatal error to Stderr as well, which is also
// captured separately for error messages).
type IO struct {
	Stdin, Stdout, Stderr *os.File
}

// orDevNull returns io with /dev/null for every stream it leaves unset, and the function that
// closes what it opened.
func (io IO) orDevNull() (IO, func(), error) {
	if io.Stdin != nil && io.Stdout != nil && io.Stderr != nil {
		return io, func() {}, nil
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return io, nil, err
	}
	for _, f := range []**os.File{&io.Stdin, &io.Stdout, &io.Stderr} {
		if *f == nil {
			*f = devnull
		}
	}
	return io, func() { devnull.Close() }, nil
}

// dup returns io with each stream's descriptor duplicated, and the function that closes the
// duplicates (for a retried invocation once the first has closed its own).
func (io IO) dup() (IO, func(), error) {
	var out IO
	var opened []*os.File
	closeAll := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	for _, s := range []struct{ src, dst **os.File }{{&io.Stdin, &out.Stdin}, {&io.Stdout, &out.Stdout}, {&io.Stderr, &out.Stderr}} {
		if *s.src == nil {
			continue
		}
		fd, err := unix.FcntlInt((*s.src).Fd(), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			closeAll()
			return IO{}, nil, err
		}
		f := os.NewFile(uintptr(fd), (*s.src).Name())
		opened = append(opened, f)
		*s.dst = f
	}
	return out, closeAll, nil
}

// Container statuses reported by State, as defined by the OCI runtime specification.
const (
	StatusCreating = "creating"
	StatusCreated  = "created"
	StatusRunning  = "running"
	StatusPaused   = "paused"
	StatusStopped  = "stopped"
)

// State is the runtime's view of one container (`runc state`). It carries no exit code and
// no resource limits: runc records neither.
type State struct {
	OCIVersion  string            `json:"ociVersion"`
	ID          string            `json:"id"`
	Status      string            `json:"status"`
	Pid         int               `json:"pid"`
	Bundle      string            `json:"bundle"`
	Rootfs      string            `json:"rootfs,omitempty"`
	Created     time.Time         `json:"created"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Error is a failed runtime invocation. It unwraps to ErrNotFound, ErrNotRunning or ErrExists
// when the runtime's message says so.
type Error struct {
	// Op is the runtime verb (create, start, kill, ...).
	Op string
	// ID is the container id, empty for List and Version.
	ID string
	// ExitCode is the runtime's exit status (-1 when it did not exit normally).
	ExitCode int
	// Message is the runtime's own error output, trimmed.
	Message string
	kind    error
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.ExitCode)
	}
	if e.ID == "" {
		return fmt.Sprintf("oci runtime %s: %s", e.Op, msg)
	}
	return fmt.Sprintf("oci runtime %s %s: %s", e.Op, e.ID, msg)
}

// Unwrap returns the classified cause, if any.
func (e *Error) Unwrap() error { return e.kind }

func classify(msg string) error {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "no such file or directory") && (strings.Contains(m, "/status") || strings.Contains(m, "cannot open directory")):
		return ErrNotFound // crun: cannot open <root>/<id>/status, cannot open directory <root>/<id>
	case strings.Contains(m, "does not exist"), strings.Contains(m, "not found") && strings.Contains(m, "container"):
		return ErrNotFound
	case strings.Contains(m, "not running"), strings.Contains(m, "is stopped"), strings.Contains(m, "no such process"):
		return ErrNotRunning
	case strings.Contains(m, "already exists"), strings.Contains(m, "id already in use"):
		return ErrExists
	}
	return nil
}

func (r *Runtime) binary() string {
	if r.Binary == "" {
		return DefaultBinary
	}
	return r.Binary
}

// CheckAvailable reports, wrapped in ErrUnavailable, why the runtime binary cannot be used:
// not found in PATH, not executable, or `BINARY --version` failing.
func (r *Runtime) CheckAvailable(ctx context.Context) error {
	return r.CheckAvailableCached(ctx, "")
}

// CheckAvailableCached is CheckAvailable that remembers a binary that worked in the file
// stamp (when not empty): the binary is not run again until its path, size, modification or
// change time differ, so a command that checks on every run spares a process start. A missing
// or non-executable binary is reported whatever the stamp says. The stamp is only a cache:
// written atomically but not synced, and losing it costs one more `--version`.
func (r *Runtime) CheckAvailableCached(ctx context.Context, stamp string) error {
	bin := r.binary()
	path, err := exec.LookPath(bin)
	if err != nil {
		return fmt.Errorf("%w: %q not found (install runc, or select another runtime with --oci-runtime): %v", ErrUnavailable, bin, err)
	}
	id := binaryIdentity(path)
	if stamp != "" && id != "" {
		if b, err := os.ReadFile(stamp); err == nil && string(b) == id {
			return nil
		}
	}
	if _, err := r.Version(ctx); err != nil {
		return fmt.Errorf("%w: %s does not work: %v", ErrUnavailable, path, err)
	}
	if stamp != "" && id != "" {
		// A stamp that cannot be written only costs the next process the version check.
		_ = atomicfile.WriteNoSync(stamp, 0o600, func(w io.Writer) error {
			_, err := io.WriteString(w, id)
			return err
		})
	}
	return nil
}

// binaryIdentity names the file at path as it is now (resolved path, size, modification and
// change time, inode), or "" when it cannot be read.
func binaryIdentity(path string) string {
	abs, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	var st syscall.Stat_t
	if err := syscall.Stat(abs, &st); err != nil {
		return ""
	}
	return fmt.Sprintf("%s\n%d %d %d.%d %d.%d\n", abs, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
}

// Version returns the first line of `BINARY --version` (e.g. "runc version 1.1.5+ds1").
func (r *Runtime) Version(ctx context.Context) (string, error) {
	out, err := r.output(ctx, "version", "", false, "--version")
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line, nil
}

// invocation is one run of the runtime binary.
type invocation struct {
	op, id string
	args   []string
	io     IO
	// stdout, when set, receives the runtime's stdout (only for verbs that print a result
	// and never hand stdio to a container).
	stdout *bytes.Buffer
	// globalFlags: whether --root/--log are passed (false for --version).
	globalFlags bool
	// onStart runs after the process started (Exec uses it for its timeout watcher).
	onStart func(p *os.Process)
	// newGroup starts the runtime in a process group of its own, so that everything it forks
	// (an exec'd process that the runtime does not move to a session of its own) can be
	// killed as a group without touching the caller's group.
	newGroup bool
}

// unlinkedTemp returns an open temporary file that has no name in the temporary directory, so
// nothing is left behind even if this process is killed, and nothing there is ever seen. Other
// processes reach it through procPath(f). The file is made with O_TMPFILE; where the temporary
// directory's filesystem lacks it, the file is created and its name removed at once.
func unlinkedTemp(what string) (*os.File, error) {
	dir := os.TempDir()
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed)")), nil
	}
	if !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EINVAL) {
		return nil, fmt.Errorf("create runtime %s file in %s: %w", what, dir, err)
	}
	f, err := os.CreateTemp(dir, "podspec-oci-*")
	if err != nil {
		return nil, fmt.Errorf("create runtime %s file: %w", what, err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("create runtime %s file: %w", what, err)
	}
	return f, nil
}

// procPath names an open file of this process for another process (the runtime opens its
// --log file itself).
func procPath(f *os.File) string {
	return fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), f.Fd())
}

// readAll reads an unlinked temporary file from its start.
func readAll(f *os.File) []byte {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	return b
}

// run executes the runtime. It returns the runtime's exit status (0 on success) and, when the
// runtime failed, an *Error with its diagnostics. errStart reports that the binary could not be
// started at all.
func (r *Runtime) run(ctx context.Context, inv invocation) (exitCode int, diag string, err error) {
	p, err := r.begin(ctx, inv)
	if err != nil {
		return -1, "", err
	}
	return p.end()
}

// invoked is a runtime process that was started (begin) and is waited for by end.
type invoked struct {
	r      *Runtime
	ctx    context.Context
	inv    invocation
	cmd    *exec.Cmd
	lf, ef *os.File // the runtime's --log file and stderr, both unlinked temporary files
	done   chan struct{}
}

// begin starts the runtime process of inv.
func (r *Runtime) begin(ctx context.Context, inv invocation) (*invoked, error) {
	args := []string{}
	var lf *os.File
	var err error
	if inv.globalFlags {
		if r.Root != "" {
			args = append(args, "--root", r.Root)
		}
		lf, err = unlinkedTemp("log")
		if err != nil {
			return nil, err
		}
		args = append(args, "--log", procPath(lf), "--log-format", "json")
	}
	args = append(args, inv.args...)

	// The runtime's stderr goes to a temporary file too (never a pipe): it is shared with the
	// container for create, and read only after the runtime exited.
	ef, err := unlinkedTemp("stderr")
	if err != nil {
		if lf != nil {
			lf.Close()
		}
		return nil, err
	}
	p := &invoked{r: r, ctx: ctx, inv: inv, lf: lf, ef: ef, done: make(chan struct{})}
	cmd := exec.Command(r.binary(), args...)
	if inv.globalFlags {
		f, err := r.Features(ctx)
		if err == nil && f.MaskHybridControllers {
			cmd, err = maskedCommand(r.binary(), args)
		}
		if err != nil {
			p.closeFiles()
			return nil, err
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, ef
	if inv.io.Stdin != nil {
		cmd.Stdin = inv.io.Stdin
	}
	if inv.io.Stdout != nil {
		cmd.Stdout = inv.io.Stdout
	}
	if inv.stdout != nil {
		cmd.Stdout = inv.stdout
	}
	if inv.io.Stderr != nil {
		cmd.Stderr = inv.io.Stderr
	}
	if inv.newGroup {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Setpgid = true
	}
	// Through the reaper's StartCmd: the supervisor is a subreaper whose reaper takes every
	// child it does not know to be waited for.
	if err := reaper.StartCmd(cmd); err != nil {
		p.closeFiles()
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, r.binary(), err)
		}
		return nil, fmt.Errorf("start %s %s: %w", r.binary(), inv.op, err)
	}
	p.cmd = cmd
	if inv.onStart != nil {
		inv.onStart(cmd.Process)
	}
	// The runtime verbs are short; a cancelled context kills the runtime process itself (not
	// the container: containers live in their own process trees).
	go func() {
		select {
		case <-ctx.Done():
			_ = cmd.Process.Kill()
		case <-p.done:
		}
	}()
	return p, nil
}

func (p *invoked) closeFiles() {
	if p.lf != nil {
		p.lf.Close()
	}
	p.ef.Close()
}

// end waits for the runtime process and returns what run returns.
func (p *invoked) end() (exitCode int, diag string, err error) {
	defer p.closeFiles()
	werr := reaper.WaitCmd(p.cmd)
	close(p.done)

	var logMsg string
	if p.lf != nil {
		logMsg = readLogErrors(readAll(p.lf))
	}
	stderrMsg := ""
	if p.inv.io.Stderr == nil {
		stderrMsg = strings.TrimSpace(string(readAll(p.ef)))
	}
	diag = logMsg
	if diag == "" {
		diag = stderrMsg
	}
	if werr == nil {
		return 0, diag, nil
	}
	var ee *exec.ExitError
	if !errors.As(werr, &ee) {
		return -1, diag, fmt.Errorf("%s %s: %w", p.r.binary(), p.inv.op, werr)
	}
	if p.ctx.Err() != nil {
		return -1, diag, fmt.Errorf("%s %s %s: %w", p.r.binary(), p.inv.op, p.inv.id, p.ctx.Err())
	}
	return ee.ExitCode(), diag, nil
}

// readLogErrors returns the error-level messages of a runtime --log-format json output, joined
// with "; ". Lines that are not JSON are returned as they are (crun and older runtimes).
func readLogErrors(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	var msgs []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var entry struct {
			Level string `json:"level"`
			Msg   string `json:"msg"`
		}
		if json.Unmarshal([]byte(line), &entry) != nil {
			msgs = append(msgs, line)
			continue
		}
		if entry.Level == "error" || entry.Level == "fatal" || entry.Level == "panic" {
			msgs = append(msgs, entry.Msg)
		}
	}
	return strings.Join(msgs, "; ")
}

// simple runs a verb that must exit 0; any other status becomes an *Error.
func (r *Runtime) simple(ctx context.Context, op, id string, args ...string) error {
	code, diag, err := r.run(ctx, invocation{op: op, id: id, args: args, globalFlags: true})
	if err != nil {
		return err
	}
	if code != 0 {
		return &Error{Op: op, ID: id, ExitCode: code, Message: diag, kind: classify(diag)}
	}
	return nil
}

// output runs a verb and returns its stdout.
func (r *Runtime) output(ctx context.Context, op, id string, global bool, args ...string) ([]byte, error) {
	var out bytes.Buffer
	code, diag, err := r.run(ctx, invocation{op: op, id: id, args: args, stdout: &out, globalFlags: global})
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, &Error{Op: op, ID: id, ExitCode: code, Message: diag, kind: classify(diag)}
	}
	return out.Bytes(), nil
}

// Create creates container id from the bundle directory (`create --bundle B --pid-file F`) and
// returns the host pid of its init process, which waits for Start. The container's stdio are
// the files in io (/dev/null when nil). The runtime process exits once the container is
// created; the container's init process is then reparented (to the caller's subreaper, if
// the caller set one, otherwise to the host's init), so the caller waits for it by pid.
func (r *Runtime) Create(ctx context.Context, id, bundle string, io IO) (int, error) {
	if err := ValidateID(id); err != nil {
		return 0, fmt.Errorf("create: %w", err)
	}
	abs, err := filepath.Abs(bundle)
	if err != nil {
		return 0, fmt.Errorf("create %s: bundle path: %w", id, err)
	}
	pidFile := filepath.Join(abs, ".podspec-"+id+".pid")
	_ = os.Remove(pidFile)
	defer os.Remove(pidFile)
	io, closeIO, err := io.orDevNull()
	if err != nil {
		return 0, fmt.Errorf("create %s: %w", id, err)
	}
	defer closeIO()
	inv := invocation{op: "create", id: id, io: io, globalFlags: true,
		args: []string{"create", "--bundle", abs, "--pid-file", pidFile, id}}
	code, diag, err := r.run(ctx, inv)
	if err == nil && code != 0 && r.retryMasked(ctx) {
		code, diag, err = r.run(ctx, inv)
	}
	if err != nil {
		return 0, err
	}
	if code != 0 {
		return 0, &Error{Op: "create", ID: id, ExitCode: code, Message: diag, kind: classify(diag)}
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return 0, fmt.Errorf("create %s: read pid file: %w", id, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("create %s: bad pid file content %q", id, b)
	}
	return pid, nil
}

// RunDetached starts `run --detach [--no-subreaper] --bundle B id` (--no-subreaper where the
// runtime's Features have it: runsc has no such flag and no subreaper), which creates the container
// and starts its program in one invocation (a createRuntime hook in the bundle can hold it in
// between). It returns once the runtime process started; the channel receives the invocation's
// result when the runtime exits: nil, or an error with its diagnostics. Until then the
// container's process is the runtime's child (runc starts it with CLONE_PARENT); with
// --no-subreaper it is reparented to the caller's subreaper when the runtime exits, so the
// caller can wait for it by pid. A cancelled ctx kills the runtime process.
func (r *Runtime) RunDetached(ctx context.Context, id, bundle string, io IO) <-chan error {
	done := make(chan error, 1)
	if err := ValidateID(id); err != nil {
		done <- fmt.Errorf("run: %w", err)
		return done
	}
	abs, err := filepath.Abs(bundle)
	if err != nil {
		done <- fmt.Errorf("run %s: bundle path: %w", id, err)
		return done
	}
	io, closeIO, err := io.orDevNull()
	if err != nil {
		done <- fmt.Errorf("run %s: %w", id, err)
		return done
	}
	defer closeIO() // the runtime has descriptors of its own once started
	f, err := r.Features(ctx)
	if err != nil {
		done <- fmt.Errorf("run %s: %w", id, err)
		return done
	}
	args := []string{"run", "--detach"}
	if f.NoSubreaper {
		args = append(args, "--no-subreaper")
	}
	inv := invocation{op: "run", id: id, io: io, globalFlags: true, args: append(args, "--bundle", abs, id)}
	p, err := r.begin(ctx, inv)
	if err != nil {
		done <- err
		return done
	}
	var reopen func() // keeps the streams open for a retry
	if io, closeIO, err = io.dup(); err == nil {
		inv.io, reopen = io, closeIO
	}
	go func() {
		code, diag, err := p.end()
		if err == nil && code != 0 && reopen != nil && r.retryMasked(ctx) {
			if p, err = r.begin(ctx, inv); err == nil {
				code, diag, err = p.end()
			}
		}
		if reopen != nil {
			reopen()
		}
		if err == nil && code != 0 {
			err = &Error{Op: "run", ID: id, ExitCode: code, Message: diag, kind: classify(diag)}
		}
		done <- err
	}()
	return done
}

// ValidateID checks a container id the way runc does ([A-Za-z0-9_+.-], not "." or "..",
// at most 1024 bytes), so that an id is safe in file names.
func ValidateID(id string) error {
	if id == "" || id == "." || id == ".." || len(id) > 1024 {
		return fmt.Errorf("invalid container id %q", id)
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_+-.", c)) {
			return fmt.Errorf("invalid container id %q: only letters, digits and _ + - . are allowed", id)
		}
	}
	return nil
}

// Start runs the user process of a created container (`start ID`).
func (r *Runtime) Start(ctx context.Context, id string) error {
	return r.simple(ctx, "start", id, "start", id)
}

// Kill sends sig to the container's init process, or to every process of the container when
// all is true (`kill [--all] ID SIG`). Note that a container's init process (pid 1 of its pid
// namespace) only receives signals it handles, except SIGKILL and SIGSTOP.
func (r *Runtime) Kill(ctx context.Context, id string, sig syscall.Signal, all bool) error {
	if sig <= 0 {
		return fmt.Errorf("kill %s: invalid signal %d", id, int(sig))
	}
	args := []string{"kill"}
	if all {
		args = append(args, "--all")
	}
	args = append(args, id, strconv.Itoa(int(sig)))
	return r.simple(ctx, "kill", id, args...)
}

// Delete removes a stopped container (`delete [--force] ID`); force also kills a running one.
func (r *Runtime) Delete(ctx context.Context, id string, force bool) error {
	args := []string{"delete"}
	if force {
		args = append(args, "--force")
	}
	args = append(args, id)
	return r.simple(ctx, "delete", id, args...)
}

// State returns the runtime's state of container id; an unknown id gives an error matching
// ErrNotFound.
func (r *Runtime) State(ctx context.Context, id string) (*State, error) {
	out, err := r.output(ctx, "state", id, true, "state", id)
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(out, &st); err != nil {
		return nil, fmt.Errorf("state %s: decode runtime output: %w", id, err)
	}
	return &st, nil
}

// listAttempts bounds how often List lists again after a container vanished mid-listing.
const listAttempts = 20

// List returns the state of every container under the runtime's root (`list --format json`).
//
// runc 1.1 reads the root's entries and then stats each one, and fails the whole listing when
// a container is deleted in between ("stat ROOT/ID: no such file or directory"): pods sharing a
// root delete containers at any time, so `rm` of one pod failed while another pod was removed.
// Such a listing is made again (each failure needs a concurrent delete, so this ends); other
// errors are returned at once.
func (r *Runtime) List(ctx context.Context) ([]State, error) {
	var out []byte
	var err error
	for range listAttempts {
		out, err = r.output(ctx, "list", "", true, "list", "--format", "json")
		if err == nil || !vanishedDuringList(err) || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	out = bytes.TrimSpace(out)
	if len(out) == 0 || string(out) == "null" {
		return nil, nil
	}
	var list []State
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, fmt.Errorf("list: decode runtime output: %w", err)
	}
	return list, nil
}

// vanishedDuringList reports whether a failed listing failed on an entry of the root that
// disappeared while it was read.
func vanishedDuringList(err error) bool {
	var e *Error
	return errors.As(err, &e) && strings.Contains(strings.ToLower(e.Message), "no such file or directory")
}

// CanUpdate reports, wrapped in ErrUnsupported, that the runtime has no update verb (runsc), or
// why its features cannot be asked; nil when Update can be tried.
func (r *Runtime) CanUpdate(ctx context.Context) error {
	feat, err := r.Features(ctx)
	if err != nil {
		return err
	}
	if !feat.Update {
		return fmt.Errorf("%w: %s has no update verb", ErrUnsupported, r.binary())
	}
	return nil
}

// Update changes the resource limits of a running container (`update --resources FILE ID`).
// Only the fields set in res are written; on cgroup v1 the memory limit must not exceed the
// memory+swap limit, so raise Swap together with Limit. Read applied values back from the
// cgroup files: runc's own state does not record them.
func (r *Runtime) Update(ctx context.Context, id string, res *specs.LinuxResources) error {
	if res == nil {
		return fmt.Errorf("update %s: no resources given", id)
	}
	if err := r.CanUpdate(ctx); err != nil {
		return fmt.Errorf("update %s: %w", id, err)
	}
	// Unlinked at once (unlinkedTemp), so an update interrupted by the caller's death leaves no
	// file behind; the runtime reads it through /proc.
	f, err := unlinkedTemp("resources")
	if err != nil {
		return fmt.Errorf("update %s: %w", id, err)
	}
	defer f.Close()
	if err := json.NewEncoder(f).Encode(res); err != nil {
		return fmt.Errorf("update %s: write resources: %w", id, err)
	}
	return r.simple(ctx, "update", id, "update", "--resources", procPath(f), id)
}
