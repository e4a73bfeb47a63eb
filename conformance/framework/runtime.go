package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
)

// Runtime drives a runtime through the command-line contract. It is safe for concurrent use.
type Runtime struct {
	argv []string
	log  io.Writer
}

// NewRuntime parses a command prefix such as "/usr/bin/podspec --root /tmp/r" (split on white
// space, no shell). Every command and its outcome is written to log (nil discards).
func NewRuntime(command string, log io.Writer) (*Runtime, error) {
	argv := strings.Fields(command)
	if len(argv) == 0 {
		return nil, errors.New("empty runtime command")
	}
	if log == nil {
		log = io.Discard
	}
	return &Runtime{argv: argv, log: log}, nil
}

// Command is the runtime's command prefix.
func (r *Runtime) Command() []string { return append([]string(nil), r.argv...) }

// Result is the outcome of one runtime command.
type Result struct {
	Args     []string
	Stdout   []byte
	Stderr   []byte
	ExitCode int
	Duration time.Duration
	// Ended is when the command returned (host clock).
	Ended time.Time
	// Error is the parsed error report of a failing command (nil when absent or unparseable).
	Error *runtimev1.ErrorReport
	// Killed: the harness ended the command with SIGKILL (Started.KillAfter); ExitCode is -1.
	Killed bool
}

// String renders the result for failure messages.
func (res *Result) String() string {
	var b strings.Builder
	if res.Killed {
		fmt.Fprintf(&b, "$ %s\nkilled by the harness (SIGKILL) after %v\n", strings.Join(res.Args, " "), res.Duration.Round(time.Microsecond))
	} else {
		fmt.Fprintf(&b, "$ %s\nexit %d after %v\n", strings.Join(res.Args, " "), res.ExitCode, res.Duration.Round(time.Millisecond))
	}
	if len(res.Stdout) > 0 {
		fmt.Fprintf(&b, "stdout: %s\n", truncate(res.Stdout, 4000))
	}
	if len(res.Stderr) > 0 {
		fmt.Fprintf(&b, "stderr: %s\n", truncate(res.Stderr, 4000))
	}
	return b.String()
}

func truncate(b []byte, n int) string {
	s := strings.TrimRight(string(b), "\n")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// Exec runs one verb with --error-format json. A non-zero exit is not an error here: callers
// inspect ExitCode; err is set only when the command could not be run at all.
func (r *Runtime) Exec(ctx context.Context, args ...string) (*Result, error) {
	return r.exec(ctx, nil, args...)
}

func (r *Runtime) exec(ctx context.Context, stdin []byte, args ...string) (*Result, error) {
	c, err := r.start(ctx, stdin, args...)
	if err != nil {
		return c.result(err)
	}
	<-c.done
	return c.result(c.waitErr)
}

// Started is a runtime command the harness started and did not wait for (Runtime.Start), so
// that it can kill it at a moment of its own choosing.
type Started struct {
	r              *Runtime
	cmd            *exec.Cmd
	full           []string
	stdout, stderr bytes.Buffer
	begun          time.Time
	done           chan struct{} // closed once the command has exited and been waited for
	waitErr        error
	ended          time.Time
	killed         bool // the harness sent SIGKILL
}

// Start starts one verb with --error-format json and returns at once; KillAfter ends it. Its
// outcome is written to the command log like every other call's.
func (r *Runtime) Start(ctx context.Context, args ...string) (*Started, error) {
	c, err := r.start(ctx, nil, args...)
	if err != nil {
		_, err = c.result(err)
		return nil, err
	}
	return c, nil
}

func (r *Runtime) start(ctx context.Context, stdin []byte, args ...string) (*Started, error) {
	full := append(append(r.Command(), "--error-format", "json"), args...)
	c := &Started{r: r, full: full, done: make(chan struct{})}
	c.cmd = exec.CommandContext(ctx, full[0], full[1:]...)
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	if stdin != nil {
		c.cmd.Stdin = bytes.NewReader(stdin)
	}
	// A runtime may leave a supervisor holding our pipes; do not wait for it.
	c.cmd.WaitDelay = 2 * time.Second
	c.begun = time.Now()
	if err := c.cmd.Start(); err != nil {
		c.ended = time.Now()
		return c, err
	}
	go func() {
		c.waitErr = c.cmd.Wait()
		c.ended = time.Now()
		close(c.done)
	}()
	return c, nil
}

// KillAfter sends the command SIGKILL d after it was started, unless it has exited by then, and
// returns its outcome: Result.Killed says whether the signal ended it. Only the process the
// harness started is killed, as `kill -9 PID` would: whatever it started itself is left to the
// runtime to deal with.
func (c *Started) KillAfter(d time.Duration) (*Result, error) {
	timer := time.NewTimer(d - time.Since(c.begun))
	defer timer.Stop()
	select {
	case <-c.done:
	case <-timer.C:
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err == nil {
			c.killed = true
		} else if !errors.Is(err, os.ErrProcessDone) {
			return c.result(fmt.Errorf("kill: %w", err))
		}
		<-c.done
	}
	return c.result(c.waitErr)
}

// result turns the end of the command (err: of its start or wait) into a Result and logs it.
func (c *Started) result(err error) (*Result, error) {
	res := &Result{Args: c.full, Stdout: c.stdout.Bytes(), Stderr: c.stderr.Bytes(), Duration: c.ended.Sub(c.begun), Ended: c.ended}
	var ee *exec.ExitError
	var ws syscall.WaitStatus
	if c.cmd.ProcessState != nil {
		ws, _ = c.cmd.ProcessState.Sys().(syscall.WaitStatus)
	}
	switch {
	case c.killed && ws.Signaled() && ws.Signal() == syscall.SIGKILL:
		res.ExitCode, res.Killed = -1, true
		res.Error = runtimev1.LastErrorReport(res.Stderr)
		fmt.Fprintf(c.r.log, "%s -> killed by the harness (SIGKILL) after %v\n", strings.Join(c.full, " "), res.Duration.Round(time.Microsecond))
		return res, nil
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		res.ExitCode = ee.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay):
		// The verb exited but something it started kept stdout open: report what it said.
		res.ExitCode = c.cmd.ProcessState.ExitCode()
	default:
		fmt.Fprintf(c.r.log, "%s -> %v\n", strings.Join(c.full, " "), err)
		return res, fmt.Errorf("run %s: %w", strings.Join(c.full, " "), err)
	}
	res.Error = runtimev1.LastErrorReport(res.Stderr)
	fmt.Fprintf(c.r.log, "%s -> exit %d (%v)\n", strings.Join(c.full, " "), res.ExitCode, res.Duration.Round(time.Millisecond))
	return res, nil
}

// CommandError is a verb that exited non-zero when success was expected.
type CommandError struct{ Result *Result }

func (e *CommandError) Error() string { return "runtime command failed:\n" + e.Result.String() }

// must runs a verb that is expected to succeed.
func (r *Runtime) must(ctx context.Context, stdin []byte, args ...string) (*Result, error) {
	res, err := r.exec(ctx, stdin, args...)
	if err != nil {
		return res, err
	}
	if res.ExitCode != 0 {
		return res, &CommandError{Result: res}
	}
	return res, nil
}

// mustJSON runs a verb expected to succeed and decodes its stdout into out.
func (r *Runtime) mustJSON(ctx context.Context, out any, args ...string) (*Result, error) {
	res, err := r.must(ctx, nil, args...)
	if err != nil {
		return res, err
	}
	if err := json.Unmarshal(res.Stdout, out); err != nil {
		return res, fmt.Errorf("decode output of %s: %w\n%s", strings.Join(args, " "), err, res)
	}
	return res, nil
}

// Version runs `version`.
func (r *Runtime) Version(ctx context.Context) (*runtimev1.Version, *Result, error) {
	var v runtimev1.Version
	res, err := r.mustJSON(ctx, &v, "version")
	return &v, res, err
}

// PodRef is the output of `run --detach`.
type PodRef struct {
	Name string `json:"name"`
	UID  string `json:"uid"`
}

// RunDetached runs `run --detach --name NAME MANIFEST` and returns the raw result (for tests
// that expect a refusal) together with the pod reference on success.
func (r *Runtime) RunDetached(ctx context.Context, name, manifest string) (*PodRef, *Result, error) {
	res, err := r.exec(ctx, nil, "run", "--detach", "--name", name, manifest)
	if err != nil || res.ExitCode != 0 {
		return nil, res, err
	}
	var ref PodRef
	if err := json.Unmarshal(res.Stdout, &ref); err != nil {
		return nil, res, fmt.Errorf("decode output of run: %w\n%s", err, res)
	}
	return &ref, res, nil
}

// Status runs `status POD -o json`.
func (r *Runtime) Status(ctx context.Context, pod string) (*v1alpha1.PodStatus, error) {
	var st v1alpha1.PodStatus
	_, err := r.mustJSON(ctx, &st, "status", pod, "-o", "json")
	return &st, err
}

// Wait runs `wait POD --timeout D`.
func (r *Runtime) Wait(ctx context.Context, pod string, timeout time.Duration) (*v1alpha1.PodStatus, *Result, error) {
	var st v1alpha1.PodStatus
	res, err := r.mustJSON(ctx, &st, "wait", pod, "--timeout", timeout.String())
	return &st, res, err
}

// Events runs `events POD` and decodes every line.
func (r *Runtime) Events(ctx context.Context, pod string) ([]runtimev1.Event, error) {
	res, err := r.must(ctx, nil, "events", pod)
	if err != nil {
		return nil, err
	}
	return ParseEvents(res.Stdout)
}

// ParseEvents decodes JSON lines of runtime events.
func ParseEvents(data []byte) ([]runtimev1.Event, error) {
	var out []runtimev1.Event
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev runtimev1.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			return out, fmt.Errorf("event line %d %q: %w", i+1, line, err)
		}
		out = append(out, ev)
	}
	return out, nil
}

// Stop runs `stop POD` with an optional grace period and --force.
func (r *Runtime) Stop(ctx context.Context, pod string, grace *int64, force bool) error {
	args := []string{"stop", pod}
	if grace != nil {
		args = append(args, "--grace-period", strconv.FormatInt(*grace, 10))
	}
	if force {
		args = append(args, "--force")
	}
	_, err := r.must(ctx, nil, args...)
	return err
}

// Remove runs `rm POD [--force]`.
func (r *Runtime) Remove(ctx context.Context, pod string, force bool) (*Result, error) {
	args := []string{"rm", pod}
	if force {
		args = append(args, "--force")
	}
	return r.exec(ctx, nil, args...)
}

// Logs runs `logs POD CONTAINER [--previous]`.
func (r *Runtime) Logs(ctx context.Context, pod, container string, previous bool) ([]byte, error) {
	args := []string{"logs", pod, container}
	if previous {
		args = append(args, "--previous")
	}
	res, err := r.must(ctx, nil, args...)
	if err != nil {
		return nil, err
	}
	return res.Stdout, nil
}

// ListEntry is one element of `list`.
type ListEntry struct {
	Name      string    `json:"name"`
	UID       string    `json:"uid"`
	Phase     string    `json:"phase"`
	CreatedAt time.Time `json:"createdAt"`
}

// List runs `list`.
func (r *Runtime) List(ctx context.Context) ([]ListEntry, error) {
	var out []ListEntry
	_, err := r.mustJSON(ctx, &out, "list")
	return out, err
}
