package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/ocilayout"
)

// This file drives the optional profiles `update` (docs/runtime-interface.md, section 4.10) and
// `gc` (section 4.11), and holds what their specs need to describe pods: shared volumes, a
// second test image, a workload that reports again later.

// Update runs `update POD MANIFEST`. On success it returns the PodStatus the runtime printed;
// a refusal is not an error here: callers inspect the result's ExitCode and Error (code and
// findings). err is set only when the command could not be run or its output not decoded.
func (r *Runtime) Update(ctx context.Context, pod, manifest string) (*v1alpha1.PodStatus, *Result, error) {
	res, err := r.exec(ctx, nil, "update", pod, manifest)
	if err != nil || res.ExitCode != runtimev1.ExitOK {
		return nil, res, err
	}
	var st v1alpha1.PodStatus
	if err := json.Unmarshal(res.Stdout, &st); err != nil {
		return nil, res, fmt.Errorf("decode output of update: %w\n%s", err, res)
	}
	return &st, res, nil
}

// GCResult is the output of `gc`.
type GCResult struct {
	Removed []string `json:"removed"`
}

// GC runs `gc`, with `--older-than D` when olderThan > 0 (0 is the contract's default: every
// terminal pod), and returns the names it removed. A non-zero exit is a CommandError.
func (r *Runtime) GC(ctx context.Context, olderThan time.Duration) ([]string, *Result, error) {
	args := []string{"gc"}
	if olderThan > 0 {
		args = append(args, "--older-than", olderThan.String())
	}
	var out GCResult
	res, err := r.mustJSON(ctx, &out, args...)
	if err != nil {
		return nil, res, err
	}
	if out.Removed == nil {
		return nil, res, fmt.Errorf("gc printed no \"removed\" array (want [] when nothing was removed)\n%s", res)
	}
	return out.Removed, res, nil
}

// WithRoot returns the runtime command with one more `--root DIR` (the contract's global flag,
// last one wins): a state directory that shares nothing with the run's, for verbs such as `gc`
// that act on every pod of a root.
func (r *Runtime) WithRoot(dir string) *Runtime {
	return &Runtime{argv: append(r.Command(), "--root", dir), log: r.log}
}

// Isolated returns a framework that drives the same runtime with its own state directory under
// the work directory (see Runtime.WithRoot); it shares the run ID, the image and the tolerances.
// Its pods are not the parent's: clean them up with its CleanupPods. OCI state of that root is
// not listed by the leak check; processes, mounts and cgroups carry the run ID and are.
func (f *Framework) Isolated(name string) (*Framework, error) {
	dir := filepath.Join(f.cfg.WorkDir, "roots", name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create root %s: %w", dir, err)
	}
	return f.isolatedAt(name, dir)
}

// isolatedAt is Isolated with the root dir, which exists.
func (f *Framework) isolatedAt(name, dir string) (*Framework, error) {
	cfg := f.cfg
	cfg.WorkDir = filepath.Join(f.cfg.WorkDir, "isolated", name)
	cfg.OCIRoots = nil
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return nil, fmt.Errorf("create work directory: %w", err)
	}
	return &Framework{cfg: cfg, RT: f.RT.WithRoot(dir), Version: f.Version, Image: f.Image, pods: map[string]*Pod{}}, nil
}

// Update builds b as the pod's new manifest (same name, image, probe volume and run ID as at
// creation), writes it next to the first one and runs `update`. It returns the status the
// runtime printed (nil when refused) and the raw result.
func (p *Pod) Update(ctx context.Context, b *PodBuilder) (*PodStatusView, *Result, error) {
	manifest := b.Build(BuildEnv{Name: p.Name, Image: p.f.Image, ProbeDir: p.Dir, RunID: p.f.cfg.RunID})
	data, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("encode manifest: %w", err)
	}
	file := fmt.Sprintf("%s.update-%d.json", strings.TrimSuffix(p.Manifest, filepath.Ext(p.Manifest)), time.Now().UnixNano())
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return nil, nil, fmt.Errorf("write manifest: %w", err)
	}
	issued := time.Now()
	st, res, err := p.f.RT.Update(ctx, p.Name, file)
	if res != nil && !res.Killed {
		p.logUpdate(UpdateLog{Issued: issued, Returned: res.Ended, Manifest: manifest, Accepted: res.ExitCode == runtimev1.ExitOK})
	}
	if st == nil {
		return nil, res, err
	}
	return &PodStatusView{PodStatus: st}, res, err
}

// UpdateLog is one `update` the harness ran on a pod: when it was issued and returned (host
// clock), the manifest it submitted and whether the runtime accepted it (exit 0).
type UpdateLog struct {
	Issued, Returned time.Time
	Manifest         *v1alpha1.Pod
	Accepted         bool
}

// CrashLog is one `crash` the harness ran on a pod: when it was issued and when it returned (the
// supervisor gone, host clock).
type CrashLog struct {
	Issued, Returned time.Time
}

func (p *Pod) logUpdate(u UpdateLog) {
	p.notesMu.Lock()
	defer p.notesMu.Unlock()
	p.updates = append(p.updates, u)
}

// Updates is a copy of the log of every `update` run on the pod that returned, in issue order.
func (p *Pod) Updates() []UpdateLog {
	p.notesMu.Lock()
	defer p.notesMu.Unlock()
	return append([]UpdateLog(nil), p.updates...)
}

// Crashes is a copy of the log of every `crash` run on the pod that succeeded, in issue order.
func (p *Pod) Crashes() []CrashLog {
	p.notesMu.Lock()
	defer p.notesMu.Unlock()
	return append([]CrashLog(nil), p.crashes...)
}

// UpdateAccepted is Update for a caller that needs the update accepted: a refusal (an exit
// other than 0) is a *CommandError.
func (p *Pod) UpdateAccepted(ctx context.Context, b *PodBuilder) error {
	_, res, err := p.Update(ctx, b)
	if err == nil && res.ExitCode != runtimev1.ExitOK {
		err = &CommandError{Result: res}
	}
	return err
}

// Built renders b for this pod as Update would (to compare with what the runtime stored).
func (p *Pod) Built(b *PodBuilder) *v1alpha1.Pod {
	return b.Build(BuildEnv{Name: p.Name, Image: p.f.Image, ProbeDir: p.Dir, RunID: p.f.cfg.RunID})
}

// UpdateApplied is a condition: the runtime recorded UpdateApplied for generation gen.
func UpdateApplied(gen int64) func(*Timeline) bool {
	return func(tl *Timeline) bool {
		_, ok := tl.First(UpdateAppliedEv(gen))
		return ok
	}
}

// UpdateAppliedEv matches the runtime's UpdateApplied event of a generation.
func UpdateAppliedEv(gen int64) Matcher {
	return func(e Entry) bool {
		return RuntimeEv(runtimev1.EventUpdateApplied, "")(e) && e.Runtime.Generation == gen
	}
}

// Shared declares a `shared` volume: name in the pod, sharedName across pods.
func (b *PodBuilder) Shared(name, sharedName string, reclaim v1alpha1.ReclaimPolicy) *PodBuilder {
	b.pod.Spec.Volumes = append(b.pod.Spec.Volumes, v1alpha1.Volume{Name: name, Shared: &v1alpha1.SharedVolumeSource{Name: sharedName, ReclaimPolicy: reclaim}})
	return b
}

// WithResizePolicy sets the resize policy of one resource of the container.
func WithResizePolicy(resource v1alpha1.ResourceName, policy v1alpha1.ResourceResizeRestartPolicy) ContainerOpt {
	return func(c *v1alpha1.Container) {
		c.ResizePolicy = append(c.ResizePolicy, v1alpha1.ContainerResizePolicy{ResourceName: resource, RestartPolicy: policy})
	}
}

// WithImage replaces the container's image reference.
func WithImage(ref string) ContainerOpt { return func(c *v1alpha1.Container) { c.Image = ref } }

// ReportWhen makes the running instance report again (same process, a fresh look at its
// environment, cgroup limits and -read files) once file exists in the probe directory; the
// harness creates it with Pod.Touch. Each call adds one more report.
func (w Workload) ReportWhen(file string) Workload {
	return w.with("-report-when", ProbeMount+"/"+file)
}

// ImageMarkEnv is the variable the second test image (Framework.MarkedImage) sets in its config.
const ImageMarkEnv = "PODSPEC_CONFORMANCE_IMAGE"

// MarkedImage builds a second test image: the same probe in another layout (WORK/image-MARK)
// whose config sets ImageMarkEnv=MARK, so a workload started from it shows which image it came
// from. Call it once per mark (a second call rebuilds the layout).
func (f *Framework) MarkedImage(ctx context.Context, mark string) (string, error) {
	dir := filepath.Join(f.cfg.WorkDir, "image-"+mark)
	opts := ocilayout.BuildOptions{
		Files:      []ocilayout.File{{Source: f.cfg.ProbeBinary, Dest: ProbePath, Mode: 0o755}},
		Tag:        ProbeImageTag,
		Entrypoint: []string{ProbePath},
		WorkingDir: "/",
		Env:        []string{ImageMarkEnv + "=" + mark},
	}
	if _, err := ocilayout.Build(ctx, dir, opts); err != nil {
		return "", fmt.Errorf("build the marked image %q: %w", mark, err)
	}
	return "oci:" + dir + ":" + ProbeImageTag, nil
}

// PodLeaks looks for anything of one removed pod left on the host: processes whose environment
// holds marker (a variable the test gave the pod's containers), mounts naming its UID or its name
// as a path component, cgroups naming its UID, and OCI containers naming its UID under the OCI roots.
// What a runtime keeps only in its own state directory (root filesystems, plain emptyDir
// directories) is not visible to a harness and is not checked.
func (f *Framework) PodLeaks(ctx context.Context, name, uid, marker string) error {
	if uid == "" {
		return fmt.Errorf("pod %s has no UID to look for", name)
	}
	var leaks []string
	leaks = append(leaks, leakedProcesses(marker)...)
	leaks = append(leaks, leakedMounts([]string{uid, "/" + name + "/"})...)
	leaks = append(leaks, leakedCgroups("/sys/fs/cgroup", []string{uid}, 6)...)
	for _, root := range f.cfg.OCIRoots {
		leaks = append(leaks, leakedOCIContainers(ctx, f.cfg.OCIRuntime, root, []string{uid})...)
	}
	if len(leaks) > 0 {
		return fmt.Errorf("pod %s (%s) left things behind:\n  %s", name, uid, strings.Join(leaks, "\n  "))
	}
	return nil
}
