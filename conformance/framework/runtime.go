package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
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
}

// String renders the result for failure messages.
func (res *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "$ %s\nexit %d after %v\n", strings.Join(res.Args, " "), res.ExitCode, res.Duration.Round(time.Millisecond))
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
	full := append(append(r.Command(), "--error-format", "json"), args...)
	cmd := exec.CommandContext(ctx, full[0], full[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	// A runtime may leave a supervisor holding our pipes; do not wait for it.
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Run()
	res := &Result{Args: full, Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Duration: time.Since(start), Ended: time.Now()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		res.ExitCode = ee.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay):
		// The verb exited but something it started kept stdout open: report what it said.
		res.ExitCode = cmd.ProcessState.ExitCode()
	default:
		fmt.Fprintf(r.log, "%s -> %v\n", strings.Join(full, " "), err)
		return res, fmt.Errorf("run %s: %w", strings.Join(full, " "), err)
	}
	res.Error = runtimev1.LastErrorReport(res.Stderr)
	fmt.Fprintf(r.log, "%s -> exit %d (%v)\n", strings.Join(full, " "), res.ExitCode, res.Duration.Round(time.Millisecond))
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
