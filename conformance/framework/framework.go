// Package framework is the conformance harness's toolbox: it drives any runtime through the
// command-line contract of docs/runtime-interface.md (Runtime), builds the test image with the
// probe (BuildProbeImage), describes test pods (PodBuilder), runs them with a harness-owned event
// socket per pod (Framework.Start, Pod), merges what the probes report with the runtime's events
// on one clock (Timeline) and checks that a run left nothing behind (CheckLeaks).
//
// It knows nothing about Ginkgo: functions return errors, and the suites turn them into
// assertions. It must not depend on the reference runtime's packages, so that it judges any
// runtime by the contract alone.
package framework

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/conformance/probe"
)

// Config configures a Framework.
type Config struct {
	// RuntimeCommand is the runtime's command prefix (split on white space).
	RuntimeCommand string
	// ProbeBinary is the static podspec-probe binary put into the test image.
	ProbeBinary string
	// Busybox is an optional static busybox put into the test image ("" for none).
	Busybox string
	// WorkDir holds the image, per-pod probe directories and manifests; created when empty.
	WorkDir string
	// RunID namespaces every pod of the run; generated when empty.
	RunID string
	// Tolerances are the timing allowances of the run.
	Tolerances Tolerances
	// Log receives every runtime command and its outcome (nil discards).
	Log io.Writer
	// OCIRoots are OCI runtime state directories the leak check lists with `runc --root`.
	OCIRoots []string
	// OCIRuntime is the OCI runtime binary used for the leak check (default runc).
	OCIRuntime string
	// EvidenceDir receives the failure evidence of pods (KeepEvidence); empty keeps none.
	EvidenceDir string
	// RuntimeLogs is an optional command (argv) that prints the runtime's own logs about a pod;
	// the harness runs it with the pod's name and UID appended and keeps its output with the
	// evidence. It is the vendor's, outside the contract: the harness never interprets it.
	RuntimeLogs []string
}

// Framework is the shared state of one conformance run.
type Framework struct {
	cfg     Config
	RT      *Runtime
	Version *runtimev1.Version
	Image   string
	ownWork bool

	mu   sync.Mutex
	pods map[string]*Pod // every pod this run asked the runtime to create, by name
	uids []string
	// notifications the run created and has not deleted (profile notifier).
	notifications map[string]bool
	// notified is what the run created and read of every Notification, by name (Notified).
	notified map[string]*NotificationLog
	// kept names the pods whose failure evidence was recorded (KeepEvidence).
	kept map[string]bool
	// builtUserImages are the test images with a User built so far, by User (userImages),
	// under userImagesMu.
	builtUserImages map[string]string
	userImagesMu    sync.Mutex
	// userDBs are the user databases of the images read so far, by digest (userDBOf), under
	// userImagesMu.
	userDBs map[string]UserDB
}

// NewRunID returns a short random run ID ("c" + 6 hex digits) usable in DNS labels.
func NewRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return "c" + hex.EncodeToString(b[:])
}

// New prepares a run: asks the runtime for its version and profiles and builds the test image.
func New(ctx context.Context, cfg Config) (*Framework, error) {
	if cfg.RunID == "" {
		cfg.RunID = NewRunID()
	}
	if cfg.Tolerances.PodTimeout.Value == 0 {
		cfg.Tolerances = DefaultTolerances()
	}
	if cfg.OCIRuntime == "" {
		cfg.OCIRuntime = "runc"
	}
	rt, err := NewRuntime(cfg.RuntimeCommand, cfg.Log)
	if err != nil {
		return nil, err
	}
	f := &Framework{cfg: cfg, RT: rt, pods: map[string]*Pod{}}
	if cfg.WorkDir == "" {
		dir, err := os.MkdirTemp("", "podspec-conformance-"+cfg.RunID+"-")
		if err != nil {
			return nil, fmt.Errorf("create work directory: %w", err)
		}
		f.cfg.WorkDir, f.ownWork = dir, true
	} else if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return nil, fmt.Errorf("create work directory: %w", err)
	}
	v, res, err := rt.Version(ctx)
	if err != nil {
		return nil, fmt.Errorf("runtime version: %w", err)
	}
	_ = res
	f.Version = v
	img, err := BuildProbeImage(ctx, filepath.Join(f.cfg.WorkDir, "image"), cfg.ProbeBinary, cfg.Busybox)
	if err != nil {
		return nil, fmt.Errorf("build the test image: %w", err)
	}
	f.Image = img
	return f, nil
}

// Config returns the run's configuration (with generated values filled in).
func (f *Framework) Config() Config { return f.cfg }

// RunID returns the run ID.
func (f *Framework) RunID() string { return f.cfg.RunID }

// Tolerances returns the run's timing allowances.
func (f *Framework) Tolerances() Tolerances { return f.cfg.Tolerances }

// PodName namespaces a short test name with the run ID, as a DNS label.
func (f *Framework) PodName(short string) string {
	name := f.cfg.RunID + "-" + short
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-")
	}
	return name
}

// Close removes the work directory if the framework created it.
func (f *Framework) Close() error {
	if f.ownWork {
		return os.RemoveAll(f.cfg.WorkDir)
	}
	return nil
}

// Pod is one pod created (or refused) by the runtime under test.
type Pod struct {
	f        *Framework
	Name     string
	UID      string
	Dir      string // host directory mounted at ProbeMount
	Manifest string // path of the manifest file
	Probe    *probe.Server
	// RunResult is the outcome of `run --detach`.
	RunResult *Result
	created   bool
	prepared  bool // by Prepare: Cleanup always removes it

	notesMu sync.Mutex
	notes   map[string]string
	// updates and crashes log every `update` and `crash` the harness ran on the pod, and life
	// when it was created and removed (under notesMu), for the lifecycle model.
	updates []UpdateLog
	crashes []CrashLog
	life    PodLife
	// images is what the harness read of the pod's images before it ran it (logImages).
	images map[string]ImageLog
}

// PodLife is what the harness knows of a pod's existence, for the lifecycle model: its labels as
// submitted, when the `run` that created it was issued and returned (zero when no run the harness
// timed created it: refused, or killed half-way), and when its first `rm` that succeeded was
// issued and returned (zero if none).
type PodLife struct {
	Labels            map[string]string
	Run, Ran          time.Time
	Removing, Removed time.Time
}

// Life is a copy of the pod's PodLife.
func (p *Pod) Life() PodLife {
	p.notesMu.Lock()
	defer p.notesMu.Unlock()
	return p.life
}

// Note records an observation made while driving the pod (e.g. a condition seen right after a
// stop request), for the specs to assert on.
func (p *Pod) Note(key, value string) {
	p.notesMu.Lock()
	defer p.notesMu.Unlock()
	if p.notes == nil {
		p.notes = map[string]string{}
	}
	p.notes[key] = value
}

// Notes returns a copy of the recorded observations.
func (p *Pod) Notes() map[string]string {
	p.notesMu.Lock()
	defer p.notesMu.Unlock()
	out := make(map[string]string, len(p.notes))
	for k, v := range p.notes {
		out[k] = v
	}
	return out
}

// PodTimeout is the run's wait for a pod expected to finish on its own.
func (p *Pod) PodTimeout() time.Duration { return p.f.cfg.Tolerances.PodTimeout.Value }

// Submit writes the pod's manifest and runs `run --detach`. It returns the pod whether or not the
// runtime accepted it (see Pod.Created and RunResult); err is set only when the harness itself
// failed.
func (f *Framework) Submit(ctx context.Context, short string, b *PodBuilder) (*Pod, error) {
	p, err := f.prepare(short, b)
	if err != nil {
		return nil, err
	}
	return p, p.run(ctx)
}

// Prepare writes the pod's manifest and opens its probe socket without running it, for a spec
// that runs `run` itself (Pod.StartRun, Pod.Run) — for instance to kill it. Cleanup of a prepared
// pod always runs `rm --force` (a killed run may have left the pod, or not): NotFound is no
// error there.
func (f *Framework) Prepare(short string, b *PodBuilder) (*Pod, error) {
	p, err := f.prepare(short, b)
	if err != nil {
		return nil, err
	}
	p.prepared = true
	return p, nil
}

func (f *Framework) prepare(short string, b *PodBuilder) (*Pod, error) {
	name := f.PodName(short)
	dir := filepath.Join(f.cfg.WorkDir, "p", short)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("create probe directory: %w", err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		return nil, fmt.Errorf("chmod probe directory: %w", err)
	}
	srv, err := probe.Listen(filepath.Join(dir, "events.sock"), nil)
	if err != nil {
		return nil, err
	}
	// The images are small and local: the build needs no cancellation (Prepare takes no context).
	users, err := f.userImages(context.Background(), b)
	if err != nil {
		_ = srv.Close()
		return nil, err
	}
	p := &Pod{f: f, Name: name, Dir: dir, Probe: srv}
	manifest := b.Build(BuildEnv{Name: name, Image: f.Image, ProbeDir: dir, RunID: f.cfg.RunID, UserImages: users})
	p.life.Labels = manifest.Metadata.Labels
	data, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		_ = srv.Close()
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	p.Manifest = filepath.Join(f.cfg.WorkDir, "m", short+".json")
	if err := os.MkdirAll(filepath.Dir(p.Manifest), 0o755); err != nil {
		_ = srv.Close()
		return nil, fmt.Errorf("create manifest directory: %w", err)
	}
	if err := os.WriteFile(p.Manifest, data, 0o644); err != nil {
		_ = srv.Close()
		return nil, fmt.Errorf("write manifest: %w", err)
	}
	f.mu.Lock()
	f.pods[name] = p
	f.mu.Unlock()
	return p, nil
}

// Run runs `run --detach --name NAME MANIFEST` for a prepared pod (again, after a killed run).
// It returns the verb's outcome, also kept as RunResult; when the runtime accepted the pod, it
// is Created with the UID run printed. err is set only when the harness itself failed.
func (p *Pod) Run(ctx context.Context) (*Result, error) {
	err := p.run(ctx)
	return p.RunResult, err
}

func (p *Pod) run(ctx context.Context) error {
	p.logImages(ctx)
	issued := time.Now()
	ref, res, err := p.f.RT.RunDetached(ctx, p.Name, p.Manifest)
	p.RunResult = res
	if err != nil {
		return err
	}
	if ref != nil {
		p.notesMu.Lock()
		p.life.Run, p.life.Ran = issued, res.Ended
		p.notesMu.Unlock()
		p.Exists(ref.UID)
	}
	return nil
}

// StartRun starts `run --detach --name NAME MANIFEST` for a prepared pod and returns at once, so
// that the spec can kill it (Started.KillAfter). Whether it created the pod is for the runtime's
// next verb to say; Exists records the answer.
func (p *Pod) StartRun(ctx context.Context) (*Started, error) {
	return p.f.RT.Start(ctx, "run", "--detach", "--name", p.Name, p.Manifest)
}

// Exists records that the runtime holds the pod under uid, as a successful run prints it or, after
// a killed run, as status shows it: it is Created, and the run's leak check looks for its UID.
func (p *Pod) Exists(uid string) {
	p.created = true
	p.UID = uid
	p.f.mu.Lock()
	p.f.uids = append(p.f.uids, uid)
	p.f.mu.Unlock()
}

// Start is Submit for a pod that must be accepted.
func (f *Framework) Start(ctx context.Context, short string, b *PodBuilder) (*Pod, error) {
	p, err := f.Submit(ctx, short, b)
	if err != nil {
		return p, err
	}
	if !p.created {
		return p, fmt.Errorf("the runtime refused pod %s:\n%s", p.Name, p.RunResult)
	}
	return p, nil
}

// Created reports whether the runtime accepted the pod.
func (p *Pod) Created() bool { return p.created }

// Status returns the pod's current status.
func (p *Pod) Status(ctx context.Context) (*PodStatusView, error) {
	st, err := p.f.RT.Status(ctx, p.Name)
	if err != nil {
		return nil, err
	}
	return &PodStatusView{PodStatus: st}, nil
}

// Wait blocks until the pod is terminal (bounded by the PodTimeout tolerance).
func (p *Pod) Wait(ctx context.Context) (*PodStatusView, error) {
	timeout := p.f.cfg.Tolerances.PodTimeout.Value
	st, res, err := p.f.RT.Wait(ctx, p.Name, timeout)
	if err != nil {
		if res != nil && res.ExitCode == runtimev1.ExitTimeout {
			tl, _ := p.Timeline(ctx)
			return nil, fmt.Errorf("pod %s not terminal within %s %v\n\n%v", p.Name, p.f.cfg.Tolerances.PodTimeout.Name, timeout, tl)
		}
		return nil, err
	}
	return &PodStatusView{PodStatus: st}, nil
}

// Stop requests a stop.
func (p *Pod) Stop(ctx context.Context, grace *int64, force bool) error {
	return p.f.RT.Stop(ctx, p.Name, grace, force)
}

// Timeline merges the probe events received so far with the runtime's event history.
func (p *Pod) Timeline(ctx context.Context) (*Timeline, error) {
	evs, err := p.f.RT.Events(ctx, p.Name)
	if err != nil {
		return NewTimeline(p.Probe.Events(), nil), err
	}
	return NewTimeline(p.Probe.Events(), evs), nil
}

// PollInterval is how often WaitFor re-reads the timeline.
const PollInterval = 100 * time.Millisecond

// WaitFor polls the timeline until cond holds, ctx ends, or timeout passes; the error carries
// the last timeline.
func (p *Pod) WaitFor(ctx context.Context, what string, timeout time.Duration, cond func(*Timeline) bool) (*Timeline, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		tl, err := p.Timeline(ctx)
		if err == nil && cond(tl) {
			return tl, nil
		}
		select {
		case <-ctx.Done():
			// Show the whole timeline, read with a context of its own.
			fresh, cancelFresh := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			if last, lerr := p.Timeline(fresh); lerr == nil {
				tl = last
			}
			cancelFresh()
			if tl == nil {
				tl = &Timeline{}
			}
			return tl, fmt.Errorf("waiting %v for %s: %w\n\n%s", timeout, what, errors.Join(ctx.Err(), err), tl)
		case <-time.After(PollInterval):
		}
	}
}

// Touch creates a marker file in the pod's probe directory (visible at ProbeMount/file).
func (p *Pod) Touch(file string) error {
	return os.WriteFile(filepath.Join(p.Dir, file), nil, 0o666)
}

// Locked reports whether a process holds the flock of file in the pod's probe directory (see
// Handler.HoldsLock). It is an error if the file does not exist.
func (p *Pod) Locked(file string) (bool, error) {
	f, err := os.Open(filepath.Join(p.Dir, file))
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err // closing the file releases a lock taken here
}

// Gone waits until no process holds the flock of file in the pod's probe directory: the handler
// that took it with Handler.HoldsLock has exited (the kernel frees the lock at its exit).
func (p *Pod) Gone(ctx context.Context, file string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		held, err := p.Locked(file)
		if err != nil {
			return fmt.Errorf("the lock %s: %w", file, err)
		}
		if !held {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the process holding %s did not exit within %v", file, timeout)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Remove deletes a marker file from the pod's probe directory.
func (p *Pod) Remove(file string) error {
	err := os.Remove(filepath.Join(p.Dir, file))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// Cleanup force-stops and removes the pod and closes its socket; safe to call more than once.
func (p *Pod) Cleanup(ctx context.Context) error { return p.cleanup(ctx, false) }

// cleanup is Cleanup; always also removes a pod whose `run` never reported success (it may have
// been interrupted half-way).
func (p *Pod) cleanup(ctx context.Context, always bool) error {
	var errs []error
	if p.created || p.prepared || always {
		issued := time.Now()
		res, err := p.f.RT.Remove(ctx, p.Name, true)
		switch {
		case err != nil:
			errs = append(errs, err)
		case res.ExitCode != runtimev1.ExitOK && res.ExitCode != runtimev1.ExitNotFound:
			errs = append(errs, &CommandError{Result: res})
		case res.ExitCode == runtimev1.ExitOK:
			p.notesMu.Lock()
			if p.life.Removing.IsZero() {
				p.life.Removing, p.life.Removed = issued, res.Ended
			}
			p.notesMu.Unlock()
		}
	}
	if err := p.Probe.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Pods returns every pod the run submitted.
func (f *Framework) Pods() []*Pod {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*Pod, 0, len(f.pods))
	for _, p := range f.pods {
		out = append(out, p)
	}
	return out
}
