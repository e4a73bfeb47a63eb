//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/logs"
	"podspec.dev/podspec/reference/oci"
	"podspec.dev/podspec/reference/publish"
	"podspec.dev/podspec/reference/store"
	"podspec.dev/podspec/reference/supervisor"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validator"
)

// exitNotCreated is run's exit status (foreground) when the pod could not be created.
const exitNotCreated = 125

// ociRuntimeStamp, in the state root, remembers the OCI runtime binary that last answered
// --version, so that run does not start it again on every pod (oci.CheckAvailableCached).
const ociRuntimeStamp = "oci-runtime.checked"

func init() { register(newRunCmd) }

func newRunCmd() *cobra.Command {
	var detach bool
	var name string
	var parallel, hostParallel, logFiles int
	var logSize string
	var publishes []string
	cmd := &cobra.Command{
		Use:   "run MANIFEST",
		Short: "Create and run a pod (foreground: stream events and logs, exit with the pod's exit code)",
		Long: "Validates the manifest, resolves its images, creates the pod and starts its supervisor.\n" +
			"With --detach it prints {\"name\",\"uid\"} and returns. In the foreground it streams events\n" +
			"and container logs on stderr; Ctrl-C stops the pod gracefully, a second Ctrl-C forces it.",
		Args: cli.Args(1),
	}
	f := addRuntimeFlags(cmd)
	addRegistryFlags(cmd, f)
	cmd.Flags().BoolVarP(&detach, "detach", "d", false, "return once the pod is created")
	cmd.Flags().StringVar(&name, "name", "", "pod name (replaces metadata.name)")
	cmd.Flags().IntVar(&parallel, "create-parallelism", 0, fmt.Sprintf("container instances created and started at once (default 0: two per CPU, here %d)", engine.DefaultCreateParallelism()))
	cmd.Flags().IntVar(&hostParallel, "host-create-parallelism", envInt("PODSPEC_HOST_CREATE_PARALLELISM"), fmt.Sprintf("OCI runtime invocations creating containers at once on the host, across every pod of the root, while this pod creates one (env PODSPEC_HOST_CREATE_PARALLELISM; default 0: two per CPU, here %d)", engine.DefaultCreateParallelism()))
	cmd.Flags().StringVar(&logSize, "log-max-size", os.Getenv("PODSPEC_LOG_MAX_SIZE"), "size at which a container's log rotates, a quantity such as 10Mi (env PODSPEC_LOG_MAX_SIZE; default 10Mi)")
	cmd.Flags().IntVar(&logFiles, "log-max-files", envInt("PODSPEC_LOG_MAX_FILES"), "log files kept per container instance, the current one included (env PODSPEC_LOG_MAX_FILES; default 5)")
	cmd.Flags().StringArrayVarP(&publishes, "publish", "p", nil, "publish a container port on the host: [ADDR:]HOSTPORT:CONTAINERPORT[/tcp], ADDR 127.0.0.1 by default (repeatable)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if parallel < 0 {
			return f.report(errf(runtimev1.CodeUsage, "--create-parallelism %d: must be at least 0 (0: two per CPU)", parallel))
		}
		if hostParallel < 0 {
			return f.report(errf(runtimev1.CodeUsage, "--host-create-parallelism %d: must be at least 0 (0: two per CPU)", hostParallel))
		}
		lim, err := logLimits(logSize, logFiles)
		if err != nil {
			return f.report(errf(runtimev1.CodeUsage, "%v", err))
		}
		var ports []publish.Port
		for _, s := range publishes {
			port, err := publish.Parse(s)
			if err != nil {
				return f.report(errf(runtimev1.CodeUsage, "--publish %v", err))
			}
			ports = append(ports, port)
		}
		p, uid, err := f.createPod(cmd.Context(), args[0], name, &store.CreateOptions{CreateParallelism: parallel, HostCreateParallelism: hostParallel, LogLimits: lim, Ports: ports})
		if err != nil {
			rerr := f.report(err)
			if !detach {
				if ee, ok := rerr.(*cli.ExitError); ok && ee.Code != cli.ExitUsage {
					ee.Code = exitNotCreated
				}
			}
			return rerr
		}
		if detach {
			return f.report(cli.PrintJSON(map[string]string{"name": p.Name, "uid": uid}))
		}
		return f.report(f.foreground(cmd.Context(), p))
	}
	return cmd
}

// logLimits reads --log-max-size and --log-max-files (unset: "" and 0).
func logLimits(size string, files int) (logs.Limits, error) {
	var lim logs.Limits
	if size != "" {
		n, err := v1alpha1.Quantity(size).Bytes()
		if err != nil {
			return lim, fmt.Errorf("--log-max-size %q: %v", size, err)
		}
		lim.MaxSize = n
	}
	if files < 0 {
		return lim, fmt.Errorf("--log-max-files %d: at least 1 (0: the default)", files)
	}
	lim.MaxFiles = files
	if err := lim.Validate(); err != nil {
		return lim, fmt.Errorf("--log-max-size, --log-max-files: %v", err)
	}
	return lim, nil
}

// envInt is the integer in environment variable name, 0 when unset or not a number (the flag
// then reports a bad value given explicitly).
func envInt(name string) int {
	n, _ := strconv.Atoi(os.Getenv(name))
	return n
}

// createPod validates the manifest, resolves images, persists the new pod and starts its
// supervisor; opts.Ports gains the manifest's hostPorts. On failure nothing of the pod remains.
func (f *rtFlags) createPod(ctx context.Context, file, name string, opts *store.CreateOptions) (*store.Pod, string, error) {
	// Whether the OCI runtime works (`runc --version`, a process start) is checked while the
	// manifest is validated; its answer is looked at where it always was, so an invalid
	// manifest is still reported first.
	available := make(chan error, 1)
	go func() {
		available <- (&oci.Runtime{Binary: f.ociRuntime}).CheckAvailableCached(ctx, filepath.Join(f.root, ociRuntimeStamp))
	}()
	// The supervisor process starts now too, and waits for its pod: its start overlaps the
	// validation instead of following the pod's creation. Errors are reported in the same
	// order as always; when it cannot be started early it is started after the creation.
	rtPath, rtErr := f.ociRuntimePath()
	var pending *supervisor.Pending
	if rtErr == nil {
		if argv, err := f.superviseArgv(supervisor.PendingPod, rtPath); err == nil {
			pending, _ = supervisor.Prepare(argv)
		}
	}
	defer func() {
		if pending != nil {
			pending.Cancel()
		}
	}()
	base := "."
	if file != "-" {
		base = filepath.Dir(file)
	}
	data, err := readManifest(file)
	if err != nil {
		return nil, "", err
	}
	pod, err := loadPod(file, data)
	if err != nil {
		return nil, "", err
	}
	if name != "" {
		pod.Metadata.Name = name
	}
	if err := store.ValidName(pod.Metadata.Name); err != nil {
		return nil, "", &rtError{code: runtimev1.CodeInvalidManifest, err: err, findings: []finding.Finding{{
			Rule: spec.ID001, Severity: spec.SeverityOf(spec.ID001), Engine: "runtime", Path: "metadata.name", Message: err.Error(), Pos: finding.Position{File: file}}}}
	}
	faultPause("validated")
	// The manifest's hostPorts are published as --publish's ports are (NET-004). A host port
	// another process holds, or published twice, is refused now, before anything of the pod
	// exists (NET-006); the supervisor listens on it once the pod's sandbox is there.
	opts.Ports = append(publish.FromPod(&pod.Spec), opts.Ports...)
	if err := publish.Check(opts.Ports); err != nil {
		return nil, "", errf(runtimev1.CodeConflict, "%v", err)
	}
	for _, v := range pod.Spec.Volumes {
		if v.HostPath == nil {
			continue
		}
		if _, err := os.Stat(v.HostPath.Path); err != nil {
			// VOL-008: a hostPath that does not exist is refused, never created.
			return nil, "", errf(runtimev1.CodeFailed, "volume %s: hostPath %s: %v", v.Name, v.HostPath.Path, err)
		}
	}
	if rtErr != nil {
		return nil, "", rtErr
	}
	s, err := f.store()
	if err != nil {
		return nil, "", err
	}
	be := backend.New(s.Root, rtPath)
	be.Puller = f.puller(s.Root)
	if err := <-available; err != nil {
		return nil, "", &rtError{code: runtimev1.CodeRuntimeUnavailable, err: err}
	}
	images, err := be.ResolveImages(ctx, &pod.Spec, base)
	if err != nil {
		return nil, "", errf(failedOrIO(err), "resolve images: %v", err)
	}
	faultPause("resolved")
	store.CreateHook = faultPause
	p, err := s.CreatePod(pod, images, opts)
	if err != nil {
		return nil, "", err
	}
	faultPause("created")
	uid := pod.Status.UID
	undo := func(e error) (*store.Pod, string, error) {
		if st, rerr := p.ReadState(); rerr == nil {
			be.RemovePod(context.WithoutCancel(ctx), &engine.PodInfo{Name: p.Name, UID: uid, Dir: p.Dir, Spec: &st.Pod.Spec}, st.Sandbox)
		}
		p.Remove()
		s.ReleaseSharedVolumes(uid, pod.Spec.Volumes)
		return nil, "", e
	}
	if pending != nil {
		err = pending.Start(ctx, p)
	} else {
		var argv []string
		if argv, err = f.superviseArgv(p.Name, rtPath); err != nil {
			return undo(err)
		}
		err = supervisor.Spawn(ctx, p, argv)
	}
	if err != nil {
		// Stop whatever the supervisor managed to start, then remove the pod.
		return undo(errf(failedOrIO(err), "start the pod: %v", err))
	}
	faultPause("started")
	return p, uid, nil
}

// faultPauseEnv names a step of run's pod creation at which the command stops, for tests that
// kill it there (docs/runtime.md, "Faults"): validated, resolved, staged, volumes, created or
// started. At that step run prints "podspec: paused at STEP" on stderr and sleeps for a minute.
const faultPauseEnv = "PODSPEC_FAULT_PAUSE"

func faultPause(step string) {
	if os.Getenv(faultPauseEnv) == step {
		fmt.Fprintf(os.Stderr, "podspec: paused at %s\n", step)
		time.Sleep(time.Minute)
	}
}

// loadPod validates the manifest exactly as `podspec validate` does and decodes the pod,
// defaulted. Error findings refuse it (InvalidManifest); warnings are printed.
func loadPod(file string, data []byte) (*v1alpha1.Pod, error) {
	v, err := validator.New(validator.Options{Objects: true})
	if err != nil {
		return nil, err
	}
	results := v.Bytes(file, data)
	var errs, warns []finding.Finding
	for _, r := range results {
		for _, fd := range r.Findings {
			if fd.Suppressed {
				continue
			}
			if fd.Severity == finding.Error {
				errs = append(errs, fd)
			} else {
				warns = append(warns, fd)
			}
		}
	}
	if len(errs) > 0 {
		return nil, &rtError{code: runtimev1.CodeInvalidManifest, err: fmt.Errorf("%s: the manifest is not valid (%d error(s))", file, len(errs)), findings: errs}
	}
	for _, w := range warns {
		fmt.Fprintf(os.Stderr, "%s:%d:%d: %s %s: %s\n", w.Pos.File, w.Pos.Line, w.Pos.Column, w.Severity, w.Rule, w.Message)
	}
	if len(results) == 1 && results[0].Kubernetes() {
		return kubernetesPod(file, results[0])
	}
	r, err := onlyDocument(file, results, v1alpha1.KindPod)
	if err != nil {
		return nil, err
	}
	return r.Pod, nil
}

// kubernetesPod is the one pod a valid Kubernetes document carries, converted and checked as a
// podspec Pod by the validator: what is not carried over (KUBE-017) is printed to stderr, and an
// error of the converted pod (an image reference podspec cannot run, IMG-001) refuses it.
func kubernetesPod(file string, r *validator.Result) (*v1alpha1.Pod, error) {
	if len(r.Converted) != 1 {
		return nil, &rtError{code: runtimev1.CodeInvalidManifest, err: fmt.Errorf("%s: want exactly one pod, found %d", file, len(r.Converted))}
	}
	c := r.Converted[0]
	for _, f := range c.NotCarried {
		fmt.Fprintf(os.Stderr, "%s:%d:%d: %s: %s: %s\n", f.Pos.File, f.Pos.Line, f.Pos.Column, f.Rule, f.Path, f.Message)
	}
	var invalid []finding.Finding
	for _, f := range c.Findings {
		if f.Severity == finding.Error && !f.Suppressed {
			invalid = append(invalid, f)
		}
	}
	if len(invalid) > 0 {
		return nil, &rtError{code: runtimev1.CodeInvalidManifest, err: fmt.Errorf("%s: the converted pod is not a valid podspec Pod (%d error(s); images must be oci:PATH layouts)", file, len(invalid)), findings: invalid}
	}
	pod := c.Pod
	pod.SetDefaults()
	return pod, nil
}

// onlyDocument returns the result of the one document of a manifest the validator accepted, with
// its decoded, defaulted object: InvalidManifest unless the manifest holds exactly one document
// of the kind wanted.
func onlyDocument(file string, results []*validator.Result, kind string) (*validator.Result, error) {
	if len(results) != 1 {
		return nil, &rtError{code: runtimev1.CodeInvalidManifest, err: fmt.Errorf("%s: want exactly one %s document, found %d", file, kind, len(results))}
	}
	r := results[0]
	if r.Kind != kind {
		return nil, &rtError{code: runtimev1.CodeInvalidManifest, err: fmt.Errorf("%s: want a %s, found %s", file, kind, r.Kind)}
	}
	if r.Pod == nil && r.Notification == nil {
		// The semantic checks ran on no typed object, so the schema engine reported an error.
		return nil, &rtError{code: runtimev1.CodeInvalidManifest, err: fmt.Errorf("%s: the %s does not decode", file, kind)}
	}
	return r, nil
}

// foreground streams the pod's events and logs to stderr until it is terminal and exits with
// the pod's exit code. The first SIGINT/SIGTERM stops the pod gracefully, the second forces.
func (f *rtFlags) foreground(ctx context.Context, p *store.Pod) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		n := 0
		for {
			select {
			case <-ctx.Done():
				return
			case <-sigs:
				n++
				force := n > 1
				if force {
					fmt.Fprintln(os.Stderr, "podspec: forcing the pod to stop")
				} else {
					fmt.Fprintln(os.Stderr, "podspec: stopping the pod (Ctrl-C again to force)")
				}
				if err := f.requestStop(ctx, p, nil, force); err != nil {
					fmt.Fprintln(os.Stderr, "podspec:", err)
				}
			}
		}
	}()
	var mu sync.Mutex
	logs := newLogTailer(p)
	go logs.run(ctx, &mu)
	err := p.FollowEvents(ctx, 0, nil, func(ev runtimev1.Event) bool {
		mu.Lock()
		logs.poll()
		fmt.Fprintln(os.Stderr, humanEvent(ev))
		mu.Unlock()
		return ev.Type != runtimev1.EventPodFinished
	})
	if err != nil {
		return err
	}
	cancel()
	mu.Lock()
	logs.poll()
	mu.Unlock()
	st, err := p.ReadState()
	if err != nil {
		return err
	}
	code := 0
	if st.Pod.Status.ExitCode != nil {
		code = int(*st.Pod.Status.ExitCode)
	}
	if code != 0 {
		return &cli.ExitError{Code: code}
	}
	return nil
}

// humanEvent renders an event as one line for people.
func humanEvent(ev runtimev1.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %-20s", ev.Time.Local().Format("15:04:05.000"), ev.Type)
	if ev.Container != "" {
		fmt.Fprintf(&b, " %s/%s", ev.ContainerKind, ev.Container)
	}
	if ev.ExitCode != nil {
		fmt.Fprintf(&b, " exitCode=%d", *ev.ExitCode)
	}
	if ev.Signal != nil {
		fmt.Fprintf(&b, " signal=%s", ev.Signal.Name)
	}
	for _, kv := range [][2]string{{"hook", ev.Hook}, {"probe", ev.Probe}, {"result", ev.Result}, {"reason", ev.Reason}, {"phase", string(ev.Phase)}, {"decidedBy", ev.DecidedBy}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, " %s=%s", kv[0], kv[1])
		}
	}
	if ev.Message != "" {
		fmt.Fprintf(&b, " (%s)", ev.Message)
	}
	return b.String()
}

// logTailer copies new output of every instance log of a pod to stderr, line-prefixed.
type logTailer struct {
	dir  string // the pod's logs directory: one directory per container
	out  io.Writer
	logs map[string]*logs.Follower // by instance log path
	done map[string]bool           // instance logs read to their end
}

func newLogTailer(p *store.Pod) *logTailer {
	return &logTailer{dir: p.Path(store.LogsDir), out: os.Stderr, logs: map[string]*logs.Follower{}, done: map[string]bool{}}
}

func (t *logTailer) run(ctx context.Context, mu *sync.Mutex) {
	defer func() {
		for _, fo := range t.logs {
			fo.Close()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
		mu.Lock()
		t.poll()
		mu.Unlock()
	}
}

// poll prints the lines completed since the last poll; a line is printed once complete. Every
// log of the pod is followed, also once the rotation dropped its first segment; an instance's
// follower is closed once a later instance of its container has a log and it has nothing more.
func (t *logTailer) poll() {
	dirs, _ := filepath.Glob(filepath.Join(t.dir, "*"))
	sort.Strings(dirs)
	for _, dir := range dirs {
		paths, _ := logs.Paths(dir)
		container := filepath.Base(dir)
		for i, path := range paths {
			fo := t.logs[path]
			if fo == nil {
				if t.done[path] {
					continue
				}
				fo = logs.NewFollower(path)
				t.logs[path] = fo
			}
			lines, _ := fo.All()
			for _, l := range lines {
				fmt.Fprintf(t.out, "[%s] %s\n", container, l.Text)
			}
			if len(lines) == 0 && i < len(paths)-1 {
				fo.Close() // an earlier instance: it ended before the later one started
				delete(t.logs, path)
				t.done[path] = true
			}
		}
	}
}
