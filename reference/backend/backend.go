// Package backend is the reference runtime's engine.Backend: container instances are OCI
// containers run by an OCI runtime CLI (package oci), each on a fresh root filesystem made from
// an OCI image layout (package image), inside the pod's sandbox; pod volumes live in the pod's
// state directory.
//
// It also removes everything of a pod from the host (RemovePod) for `rm` and `gc`.
package backend

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/imageref"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/image"
	"podspec.dev/podspec/reference/logs"
	"podspec.dev/podspec/reference/oci"
	"podspec.dev/podspec/reference/publish"
	"podspec.dev/podspec/reference/sandbox"
	"podspec.dev/podspec/reference/store"
)

// Backend implements engine.Backend on an OCI runtime CLI.
type Backend struct {
	// Runtime is the OCI runtime (its Root is the runtime root's "runc" directory).
	Runtime *oci.Runtime
	// Images is the image cache.
	Images *image.Store
	// Sandboxes creates and removes pod sandboxes.
	Sandboxes Sandboxer
	// SharedDir holds shared named volumes.
	SharedDir string
	// LogLimits bound each instance's log (unset fields: logs.DefaultLimits).
	LogLimits logs.Limits
	// Logf, if set, reports what goes wrong where no caller waits for it (a log that cannot be
	// written).
	Logf func(format string, args ...any)
	// Puller pulls registry images into layouts Images resolves; nil where nothing pulls (a
	// supervisor starts instances only from images kept when the pod was created, IMG-023).
	Puller Puller
	// CreateSlots is the directory of lock files that every supervisor of the runtime root
	// shares to bound the OCI runtime invocations creating instances on the host (held.go).
	CreateSlots string
	// HostCreateParallelism is how many of those invocations may run at once on the host
	// (the pod's store.State.HostCreateParallelism); 0: engine.DefaultCreateParallelism.
	HostCreateParallelism int

	held heldInstances // created instances waiting in their createRuntime hook (held.go)
	out  outputs       // the copiers of instances' output into their logs (output.go)
}

// New returns the backend of a runtime root: OCI runtime state in root/runc, images in
// root/images, shared volumes in root/volumes (store.SharedVolumePath; their references are
// counted by the store).
func New(root, ociRuntime string) *Backend {
	return &Backend{
		Runtime:     &oci.Runtime{Binary: ociRuntime, Root: filepath.Join(root, "runc"), FeaturesFile: filepath.Join(root, FeaturesFile)},
		Images:      &image.Store{Root: filepath.Join(root, ImagesDir)},
		Sandboxes:   pinnedSandboxer{},
		SharedDir:   filepath.Join(root, store.SharedVolumesDir),
		CreateSlots: filepath.Join(root, store.CreateSlotsDir),
	}
}

// Puller makes a registry image available as an OCI layout (package registry's Store).
type Puller interface {
	// PullLayout pulls image as policy says and returns the layout holding it, by digest, and
	// its imageID (HOST/PATH@sha256:HEX).
	PullLayout(ctx context.Context, image string, policy v1alpha1.PullPolicy) (ocilayout.Reference, string, error)
}

// ImagesDir is the image store's root under a runtime root (package image's Store).
const ImagesDir = "images"

// RegistryDir is where, under the image store's root, pulled registry images live.
const RegistryDir = "registry"

// FeaturesFile, in a runtime root, keeps what the OCI runtime was found to support
// (oci.Features), so that each supervisor does not probe it again.
const FeaturesFile = "oci-features.json"

var _ engine.Backend = (*Backend)(nil)

// CgroupParent is the cgroup every container of the pod lives under.
func CgroupParent(uid string) string { return "/podspec/" + uid }

// ResolveImages resolves every image of the pod (defer containers' included, IMG-002): an OCI
// layout where it lies, a registry image through the Puller (IMG-015, imagePullPolicy), and
// keeps its content in the image store (Store.Keep: instances start from it even if the layout
// changes or the registry is gone, IMG-004, IMG-023). It returns, per container name, the pinned
// reference instances are created from and status reports as imageID (IMG-016):
// oci:ABSOLUTE-PATH@DIGEST for a layout, HOST/PATH@DIGEST for a registry image. baseDir
// resolves relative layout paths. Containers that name the same image share one resolution.
func (b *Backend) ResolveImages(ctx context.Context, spec *v1alpha1.PodSpec, baseDir string) (map[string]string, error) {
	out := map[string]string{}
	pinned := map[string]string{} // image as written, and its policy → pinned reference
	add := func(name, ref string, policy v1alpha1.PullPolicy) error {
		key := ref + " " + string(policy)
		if p, ok := pinned[key]; ok {
			out[name] = p
			return nil
		}
		var r ocilayout.Reference
		var id string
		if imageref.IsLayout(ref) {
			var err error
			if r, err = ocilayout.ParseReference(ref, baseDir); err != nil {
				return fmt.Errorf("container %s: %w", name, err)
			}
		} else {
			if b.Puller == nil {
				return fmt.Errorf("container %s: image %s: this runtime does not pull registry images here", name, ref)
			}
			var err error
			if r, id, err = b.Puller.PullLayout(ctx, ref, policy); err != nil {
				return fmt.Errorf("container %s: %w", name, err)
			}
		}
		img, err := b.Images.Resolve(ctx, r)
		if err != nil {
			return fmt.Errorf("container %s: image %s: %w", name, ref, err)
		}
		if err := b.Images.Keep(ctx, img); err != nil {
			return fmt.Errorf("container %s: image %s: %w", name, ref, err)
		}
		if id == "" {
			id = ocilayout.Transport + r.Path + "@" + img.Digest
		}
		out[name] = id
		pinned[key] = id
		return nil
	}
	for _, c := range spec.InitContainers {
		if err := add(c.Name, c.Image, c.ImagePullPolicy); err != nil {
			return nil, err
		}
	}
	for _, c := range spec.Containers {
		if err := add(c.Name, c.Image, c.ImagePullPolicy); err != nil {
			return nil, err
		}
	}
	for _, c := range spec.DeferContainers {
		if err := add(c.Name, c.Image, c.ImagePullPolicy); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sandboxState is what the backend persists about a pod's sandbox.
type sandboxState struct {
	CgroupParent string            `json:"cgroupParent"`
	Namespaces   map[string]string `json:"namespaces,omitempty"`
	Infra        json.RawMessage   `json:"infra,omitempty"`
	Images       map[string]string `json:"images"`
}

// SetupSandbox creates the pod's volumes and sandbox.
func (b *Backend) SetupSandbox(ctx context.Context, pod *engine.PodInfo) (json.RawMessage, error) {
	if err := b.setupVolumes(pod); err != nil {
		return nil, err
	}
	infra, ns, err := b.Sandboxes.Create(ctx, b, pod)
	if err != nil {
		return nil, err
	}
	return json.Marshal(sandboxState{CgroupParent: CgroupParent(pod.UID), Namespaces: ns, Infra: infra, Images: pod.Images})
}

// TeardownSandbox removes the sandbox (not the volumes: they live until the pod is removed).
func (b *Backend) TeardownSandbox(ctx context.Context, pod *engine.PodInfo, raw json.RawMessage) error {
	var sb sandboxState
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &sb); err != nil {
			return fmt.Errorf("sandbox state: %w", err)
		}
	}
	var errs []error
	if err := b.Sandboxes.Destroy(ctx, b, pod, sb.Infra); err != nil {
		errs = append(errs, err)
	}
	if err := oci.RemoveCgroup(CgroupParent(pod.UID)); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (b *Backend) setupVolumes(pod *engine.PodInfo) error {
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.EmptyDir != nil:
			dir := filepath.Join(pod.Dir, store.VolumesDir, v.Name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("volume %s: %w", v.Name, err)
			}
			if v.EmptyDir.Medium == "Memory" {
				opts := "mode=0755"
				if v.EmptyDir.SizeLimit != nil {
					n, err := v.EmptyDir.SizeLimit.Bytes()
					if err != nil {
						return fmt.Errorf("volume %s: sizeLimit: %w", v.Name, err)
					}
					opts += ",size=" + strconv.FormatInt(n, 10)
				}
				if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
					return fmt.Errorf("volume %s: mount tmpfs: %w", v.Name, err)
				}
			}
		case v.Shared != nil:
			if err := store.ValidName(v.Shared.Name); err != nil {
				return fmt.Errorf("volume %s: %w", v.Name, err)
			}
			if err := os.MkdirAll(filepath.Join(b.SharedDir, v.Shared.Name), 0o755); err != nil {
				return fmt.Errorf("volume %s: %w", v.Name, err)
			}
		}
	}
	return nil
}

// volumeSource is the host path of a pod volume.
func (b *Backend) volumeSource(pod *engine.PodInfo, name string) (string, error) {
	for _, v := range pod.Spec.Volumes {
		if v.Name != name {
			continue
		}
		switch {
		case v.EmptyDir != nil:
			return filepath.Join(pod.Dir, store.VolumesDir, v.Name), nil
		case v.HostPath != nil:
			return filepath.Clean(v.HostPath.Path), nil
		case v.Shared != nil:
			return filepath.Join(b.SharedDir, v.Shared.Name), nil
		}
	}
	return "", fmt.Errorf("volume %q is not declared", name)
}

func (b *Backend) bundleDir(pod *engine.PodInfo, id string) string {
	return filepath.Join(pod.Dir, store.InstancesDir, id)
}

// CreateInstance makes the instance's bundle (fresh root filesystem, config.json) and creates
// the OCI container with its output going to the instance's log file.
func (b *Backend) CreateInstance(ctx context.Context, pod *engine.PodInfo, raw json.RawMessage, req *engine.InstanceRequest) (int, error) {
	var sb sandboxState
	if err := json.Unmarshal(raw, &sb); err != nil {
		return 0, fmt.Errorf("sandbox state: %w", err)
	}
	c := req.Container
	ref := req.Image
	if ref == "" {
		ref = sb.Images[c.Name]
	}
	if ref == "" {
		ref = c.Image
	}
	img, err := b.instanceImage(ctx, ref, pod.Dir)
	if err != nil {
		return 0, err
	}
	bundle := b.bundleDir(pod, req.ID)
	// A supervisor lost while it created this instance left its bundle (a root filesystem, maybe
	// an OCI container or a process) behind; the adopting supervisor creates the instance afresh
	// instead of failing it with a StartError.
	if _, err := os.Stat(bundle); err == nil {
		if err := b.DeleteInstance(ctx, req.ID, pod); err != nil {
			return 0, fmt.Errorf("remove what a lost supervisor left of %s: %w", req.ID, err)
		}
	}
	if err := os.MkdirAll(bundle, 0o700); err != nil {
		return 0, fmt.Errorf("bundle %s: %w", bundle, err)
	}
	rootfs := filepath.Join(bundle, "rootfs")
	if _, err := b.Images.NewRootfs(ctx, img, rootfs); err != nil {
		return 0, err
	}
	// The image's User, or the securityContext's runAsUser and runAsGroup, resolved against the
	// instance's own /etc/passwd and /etc/group; execs in the instance inherit it.
	user, err := processUser(rootfs, img.User, c.SecurityContext)
	if err != nil {
		return 0, fmt.Errorf("container %s: %w", c.Name, err)
	}
	cfg := oci.ContainerConfig{
		Rootfs:         rootfs,
		Args:           processArgs(c, img),
		Env:            mergeEnv(img.Env, c.Env, req.ExtraEnv),
		Cwd:            firstNonEmpty(c.WorkingDir, img.WorkingDir, "/"),
		UID:            user.UID,
		GID:            user.GID,
		AdditionalGids: user.AdditionalGids,
		JoinNamespaces: sb.Namespaces,
		CgroupsPath:    CgroupParent(pod.UID) + "/" + req.ID,
		Annotations:    map[string]string{"dev.podspec.pod": pod.Name, "dev.podspec.pod-uid": pod.UID, "dev.podspec.container": c.Name},
		CreateRuntime:  []specs.Hook{HeldHook(bundle)},
	}
	securityConfig(c.SecurityContext, &cfg)
	if len(cfg.Args) == 0 {
		return 0, fmt.Errorf("container %s: no command: the image has no entrypoint or cmd and the container sets none", c.Name)
	}
	if err := resources(c.Resources, &cfg.Resources); err != nil {
		return 0, fmt.Errorf("container %s: %w", c.Name, err)
	}
	for _, m := range c.VolumeMounts {
		src, err := b.volumeSource(pod, m.Name)
		if err != nil {
			return 0, fmt.Errorf("container %s: %w", c.Name, err)
		}
		cfg.Mounts = append(cfg.Mounts, oci.Mount{Source: src, Destination: m.MountPath, ReadOnly: m.ReadOnly})
	}
	if cfg.RecursiveReadOnly, err = b.recursiveReadOnly(ctx, cfg.Mounts); err != nil {
		return 0, fmt.Errorf("container %s: %w", c.Name, err)
	}
	if err := oci.WriteBundle(bundle, cfg); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(req.LogPath), 0o700); err != nil {
		return 0, fmt.Errorf("log directory: %w", err)
	}
	lf, err := b.openOutput(req.ID, req.LogPath)
	if err != nil {
		return 0, err
	}
	defer lf.Close()
	return b.createHeld(ctx, req.ID, bundle, oci.IO{Stdout: lf, Stderr: lf})
}

// recursiveReadOnly is the mount option that makes the read-only ones among mounts read-only all
// the way down on this OCI runtime (VOL-009): it fails, naming the runtime, rather than leave
// the submounts of a read-only mount writable.
func (b *Backend) recursiveReadOnly(ctx context.Context, mounts []oci.Mount) (string, error) {
	for _, m := range mounts {
		if m.ReadOnly {
			f, err := b.Runtime.Features(ctx)
			if err != nil {
				return "", err
			}
			return f.RecursiveReadOnlyOption()
		}
	}
	return "", nil
}

// instanceImage is the content an instance starts from: the image kept when the pod was created
// (or when an update changed it) for a pinned reference, whatever its layout holds now
// (IMG-004); a fresh resolution otherwise. A registry image is only ever the kept one: the
// instance needs no registry (IMG-023). podDir resolves a relative layout path.
func (b *Backend) instanceImage(ctx context.Context, ref, podDir string) (*ocilayout.Image, error) {
	if !imageref.IsLayout(ref) {
		r, err := imageref.Parse(ref)
		if err != nil {
			return nil, err
		}
		if r.Tagged {
			return nil, fmt.Errorf("image %s is not pinned by digest", ref)
		}
		img, err := b.Images.Kept(r.Name.Identifier())
		if err != nil {
			return nil, fmt.Errorf("image %s is no longer held: %w", ref, err)
		}
		return img, nil
	}
	r, err := ocilayout.ParseReference(ref, podDir)
	if err != nil {
		return nil, err
	}
	if r.Digest != "" {
		if img, err := b.Images.Kept(r.Digest); err == nil {
			return img, nil
		}
	}
	return b.Images.Resolve(ctx, r)
}

// processArgs follows Kubernetes: command replaces the image entrypoint, args replace its cmd
// (and a command without args drops the image cmd).
func processArgs(c *v1alpha1.Container, img *ocilayout.Image) []string {
	switch {
	case len(c.Command) > 0:
		return append(append([]string{}, c.Command...), c.Args...)
	case len(c.Args) > 0:
		return append(append([]string{}, img.Entrypoint...), c.Args...)
	}
	return append(append([]string{}, img.Entrypoint...), img.Cmd...)
}

func mergeEnv(base []string, env []v1alpha1.EnvVar, extra []string) []string {
	out := append([]string{}, base...)
	set := func(kv string) {
		k, _, _ := strings.Cut(kv, "=")
		for i, o := range out {
			if ok, _, _ := strings.Cut(o, "="); ok == k {
				out[i] = kv
				return
			}
		}
		out = append(out, kv)
	}
	for _, e := range env {
		set(e.Name + "=" + e.Value)
	}
	for _, kv := range extra {
		set(kv)
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// DefaultPidsLimit is the pids limit of an instance whose container sets no
// `resources.limits.pids` (RES-003): podman's default, enough for any service and its workers,
// and a stop to a fork bomb before it exhausts the host's pids.
const DefaultPidsLimit = 2048

// resources turns a container's resources into the OCI limits of its instances: the limits it
// sets, and DefaultPidsLimit when it sets no pids limit.
func resources(r *v1alpha1.ResourceRequirements, out *oci.Resources) error {
	out.PidsLimit = DefaultPidsLimit
	if r == nil {
		return nil
	}
	if q, ok := r.Limits[v1alpha1.ResourceCPU]; ok {
		v, err := q.MilliCPU()
		if err != nil {
			return fmt.Errorf("cpu limit: %w", err)
		}
		out.CPULimitMilli = v
	}
	if q, ok := r.Requests[v1alpha1.ResourceCPU]; ok {
		v, err := q.MilliCPU()
		if err != nil {
			return fmt.Errorf("cpu request: %w", err)
		}
		out.CPURequestMilli = v
	}
	if q, ok := r.Limits[v1alpha1.ResourceMemory]; ok {
		v, err := q.Bytes()
		if err != nil {
			return fmt.Errorf("memory limit: %w", err)
		}
		out.MemoryLimitBytes = v
	}
	if q, ok := r.Limits[v1alpha1.ResourcePIDs]; ok {
		v, err := q.Count()
		if err != nil {
			return fmt.Errorf("pids limit: %w", err)
		}
		out.PidsLimit = v
	}
	return nil
}

// StartInstance starts an instance CreateInstance created: it releases the hold of the
// runtime invocation that created it (held.go). (An instance a lost supervisor created but
// never started is discarded on adoption, never started.)
func (b *Backend) StartInstance(ctx context.Context, id string) error {
	if wasHeld, err := b.release(id, true); wasHeld {
		return err
	}
	return fmt.Errorf("start %s: the instance is not waiting to start", id)
}

// InstanceRan asks the OCI runtime whether the instance was started: a container it knows
// as "created" was not, one it knows as "running" or "stopped" was, and one it does not know
// was deleted before anything ran in it.
func (b *Backend) InstanceRan(ctx context.Context, id string) (ran, known bool) {
	st, err := b.Runtime.State(ctx, id)
	if errors.Is(err, oci.ErrNotFound) {
		return false, true
	}
	if err != nil {
		return false, false
	}
	switch st.Status {
	case "created":
		return false, true
	case "running", "stopped", "paused":
		return true, true
	}
	return false, false
}

// InRuntimeInit reports whether the instance's host process is still the OCI runtime's init
// (oci.Runtime.InInit).
func (b *Backend) InRuntimeInit(ctx context.Context, pid int) (inInit, tells bool) {
	return b.Runtime.InInit(ctx, pid)
}

// Signal sends sig to the instance's init process.
func (b *Backend) Signal(ctx context.Context, id string, sig syscall.Signal) error {
	return b.Runtime.Kill(ctx, id, sig, false)
}

// Exec runs argv in the instance, bounded by ctx; begun is called once its process has begun
// (oci.ExecProcess.Begun: the OCI runtime wrote its pid file).
func (b *Backend) Exec(ctx context.Context, id string, argv []string, begun func()) (int, error) {
	return b.Runtime.Exec(ctx, id, oci.ExecProcess{Args: argv, Begun: begun})
}

// Dial opens a TCP connection to address (IP:port) from inside the pod's network namespace.
func (b *Backend) Dial(ctx context.Context, pod *engine.PodInfo, raw json.RawMessage, address string) (net.Conn, error) {
	netns, err := podNetns(raw)
	if err != nil {
		return nil, err
	}
	return sandbox.DialIn(ctx, netns, "tcp", address)
}

// podNetns returns the path of the pod's network namespace its sandbox state records.
func podNetns(raw json.RawMessage) (string, error) {
	var sb sandboxState
	if err := json.Unmarshal(raw, &sb); err != nil {
		return "", fmt.Errorf("sandbox state: %w", err)
	}
	netns := sb.Namespaces[oci.NamespaceNetwork]
	if netns == "" {
		return "", errors.New("the pod's sandbox has no network namespace of its own")
	}
	return netns, nil
}

// OOMKills reads the oom_kill counter of the instance's memory cgroup (cgroup v1
// memory.oom_control, or memory.events on v2). Each instance has a cgroup of its own, so the
// counter is that instance's.
func (b *Backend) OOMKills(id string, pod *engine.PodInfo) uint64 {
	cg := CgroupParent(pod.UID) + "/" + id
	if p, err := oci.CgroupFile(cg, "memory", "memory.oom_control"); err == nil {
		if n, ok := readCounter(p, "oom_kill"); ok {
			return n
		}
	}
	if p, err := oci.CgroupFile(cg, "", "memory.events"); err == nil {
		if n, ok := readCounter(p, "oom_kill"); ok {
			return n
		}
	}
	return 0
}

func readCounter(path, key string) (uint64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && k == key {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// DeleteInstance removes the OCI container (killing it if needed), its cgroup and its bundle.
func (b *Backend) DeleteInstance(ctx context.Context, id string, pod *engine.PodInfo) error {
	// A held instance is abandoned first: its hook fails and the runtime destroys it. So is
	// one a lost supervisor held (endOrphanedHold), which would hold up the delete.
	b.release(id, false)
	endOrphanedHold(b.bundleDir(pod, id))
	cg := CgroupParent(pod.UID) + "/" + id
	err := b.Runtime.Delete(ctx, id, true)
	// Processes the runtime does not know (a create that failed half-way) are killed through
	// the instance's cgroup, also when the delete failed.
	killCgroup(cg)
	if err != nil && !errors.Is(err, oci.ErrNotFound) {
		// The bundle stays: it is how PodContainers finds the container for the next delete.
		return fmt.Errorf("delete %s: %w", id, err)
	}
	var errs []error
	bundle := b.bundleDir(pod, id)
	if err := unmountUnder(bundle); err != nil {
		errs = append(errs, err)
	} else if err := os.RemoveAll(bundle); err != nil {
		errs = append(errs, err)
	}
	oci.RemoveCgroup(cg)
	return errors.Join(errs...)
}

// killCgroup sends SIGKILL to every process in the cgroup tree cg (pids hierarchy, else the
// unified one) and waits up to two seconds for the tree to empty.
func killCgroup(cg string) {
	procs := func() []int {
		var out []int
		for _, ctl := range []string{"pids", ""} {
			top, err := oci.CgroupFile(cg, ctl, "")
			if err != nil {
				continue
			}
			filepath.WalkDir(top, func(path string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
					return nil
				}
				b, _ := os.ReadFile(path)
				for _, f := range strings.Fields(string(b)) {
					if pid, err := strconv.Atoi(f); err == nil {
						out = append(out, pid)
					}
				}
				return nil
			})
			return out
		}
		return out
	}
	for i := 0; i < 100; i++ {
		ps := procs()
		if len(ps) == 0 {
			return
		}
		for _, pid := range ps {
			unix.Kill(pid, unix.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// RemovePod removes everything of a terminal (or force-stopped) pod from the host: OCI
// containers left in the runtime, the sandbox, mounts under the pod directory, the pod's
// cgroups; the directory itself is removed by the caller (store.Pod.Remove).
func (b *Backend) RemovePod(ctx context.Context, pod *engine.PodInfo, sandbox json.RawMessage) error {
	var errs []error
	// Holds a lost supervisor left (endOrphanedHold) first, or their containers' deletes wait.
	if ents, err := os.ReadDir(filepath.Join(pod.Dir, store.InstancesDir)); err == nil {
		for _, e := range ents {
			endOrphanedHold(filepath.Join(pod.Dir, store.InstancesDir, e.Name()))
		}
	}
	list, err := b.PodContainers(ctx, pod)
	if err != nil {
		errs = append(errs, err)
	}
	for _, id := range list {
		if err := b.Runtime.Delete(ctx, id, true); err != nil && !errors.Is(err, oci.ErrNotFound) {
			errs = append(errs, err)
		}
	}
	if pod.UID != "" {
		// Without a UID (a pod whose state and events are both lost) there is no cgroup to
		// name: "/podspec/" alone would be every pod's.
		killCgroup(CgroupParent(pod.UID))
		if err := b.TeardownSandbox(ctx, pod, sandbox); err != nil {
			errs = append(errs, err)
		}
	}
	if err := unmountUnder(pod.Dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// PodContainers lists the IDs of the OCI containers the pod may have in the runtime: one per
// bundle directory in its instances directory. Every instance's bundle is made there before its
// container is created (CreateInstance) and removed only once the runtime deleted the container
// (DeleteInstance), so the list misses none, and it needs neither the pod's UID nor the runtime's
// list of every container: `runc list` reads every container's state, which made removing a pod
// cost in proportion to the number of pods on the host (535 ms a pod among 1,000, issue 31). An
// ID whose container is gone already is the runtime's not-found, which callers pass over.
func (b *Backend) PodContainers(ctx context.Context, pod *engine.PodInfo) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(pod.Dir, store.InstancesDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the pod's instances: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// KillPod sends SIGKILL to every OCI container the runtime knows for the pod (PodContainers),
// for a pod that has no supervisor to stop it. It returns how many it signalled.
func (b *Backend) KillPod(ctx context.Context, pod *engine.PodInfo) (int, error) {
	list, err := b.PodContainers(ctx, pod)
	if err != nil {
		return 0, err
	}
	var errs []error
	n := 0
	for _, id := range list {
		err := b.Runtime.Kill(ctx, id, syscall.SIGKILL, true)
		switch {
		case errors.Is(err, oci.ErrNotFound):
			continue // a bundle whose container is gone (or was never created)
		case err != nil && !errors.Is(err, oci.ErrNotRunning):
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// VolumeUsage returns the disk a pod's emptyDir volume uses, as du counts it: the blocks of
// every file and directory below it, a file with several links once. Files that vanish while
// it walks are skipped.
func (b *Backend) VolumeUsage(pod *engine.PodInfo, name string) (int64, error) {
	dir := filepath.Join(pod.Dir, store.VolumesDir, name)
	seen := map[uint64]bool{}
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path != dir {
				return nil
			}
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(path, &st); err != nil {
			return nil
		}
		if st.Nlink > 1 && !d.IsDir() {
			if seen[st.Ino] {
				return nil
			}
			seen[st.Ino] = true
		}
		total += st.Blocks * 512
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("volume %s: %w", name, err)
	}
	return total, nil
}

// Publish forwards the pod's published ports into its network namespace (package publish) until
// the returned closer is closed; it fails, listening on nothing, when a host address cannot be
// listened on.
func (b *Backend) Publish(ctx context.Context, pod *engine.PodInfo, raw json.RawMessage, ports []publish.Port) (io.Closer, error) {
	if len(ports) == 0 {
		return &publish.Forwarder{}, nil // forwards nothing
	}
	netns, err := podNetns(raw)
	if err != nil {
		return nil, fmt.Errorf("published ports: %w", err)
	}
	dial := func(ctx context.Context, network, address string) (net.Conn, error) {
		return sandbox.DialIn(ctx, netns, network, address)
	}
	return publish.Start(ports, dial, b.Logf)
}
