// Package podman is a podspec runtime adapter (docs/runtime-interface.md, docs/adapters.md) on
// rootful podman's own pods: a podspec Pod becomes a podman pod (`pod create --exit-policy
// stop`, network none), its init containers podman init containers (`--init-ctr always`),
// its main containers podman containers with podman's restart policy and stop timeout; podman
// starts, restarts and stops them. The adapter translates and keeps no process of its own:
// status is read from `podman inspect`, events from podman's event log (`podman events
// --format json`), logs from `podman logs`. The only thing it records itself is what it was
// asked (the pod's manifest and UID, stop requests and accepted updates), in ROOT/pods. An
// update is `podman update` of a running container's limits (update.go).
//
// What podman cannot express is refused with Failed when a pod or an update asks for it, never
// accepted and ignored (see Unsupported, planUpdate); the optional profiles it cannot serve are
// not declared.
package podman

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	rtv1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/imageref"
	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/internal/stateroot"
	"podspec.dev/podspec/spec"
)

// Error is a contract error: a code and a message (and, for InvalidManifest, findings).
type Error struct {
	Code     rtv1.ErrorCode
	Message  string
	Findings []finding.Finding
}

func (e *Error) Error() string { return e.Message }

func errorf(code rtv1.ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Adapter runs podman for one state root.
type Adapter struct {
	// Root is the adapter's state directory: podman's storage and run state, its
	// containers.conf, its event log, and the adapter's pod records all live under it.
	Root string
	// OCIRuntime is the OCI runtime podman runs containers with (its --runtime).
	OCIRuntime string
	// Podman is the podman binary; default "podman".
	Podman string
}

// podRecord is what the adapter keeps of a pod: what it was asked.
type podRecord struct {
	Name       string            `json:"name"`
	UID        string            `json:"uid"`
	CreatedAt  time.Time         `json:"createdAt"`
	PodID      string            `json:"podID"`
	InfraID    string            `json:"infraID"`
	Spec       v1alpha1.PodSpec  `json:"spec"`
	Containers []containerRecord `json:"containers"`
	Stops      []stopRequest     `json:"stops,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	// Annotations, like Labels, are the manifest's metadata, kept as the base of an update.
	Annotations map[string]string `json:"annotations,omitempty"`
	// Updates are the accepted updates that changed the manifest, in order.
	Updates []updateApplied `json:"updates,omitempty"`
	// Creator is the `run` still creating the pod; nil once the pod is whole (its containers
	// created and its start launched). A record whose creator is gone is a creation cut short
	// (the command was killed): the next verb that finds it removes what it made (SUP-010).
	Creator *creator `json:"creator,omitempty"`
}

// creator identifies a process across pid reuse: its pid and its start time (clock ticks after
// boot, /proc/PID/stat field 22).
type creator struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// self is the running process as a creator.
func self() *creator {
	return &creator{PID: os.Getpid(), Start: procstat.StartTime(os.Getpid())}
}

// alive reports whether the creator still runs (the same process, not one that reused its pid).
func (c *creator) alive() bool {
	start := procstat.StartTime(c.PID)
	return start != 0 && start == c.Start
}

type containerRecord struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"` // init or main
	ID    string `json:"id"`   // podman's container ID
	Image string `json:"image"`
	// ImageID is the image podman resolved at creation, by digest, as status reports it
	// (IMG-016); empty when podman did not say (heldImage).
	ImageID string `json:"imageID,omitempty"`
}

type stopRequest struct {
	Time        time.Time `json:"time"`
	GracePeriod int64     `json:"gracePeriodSeconds"`
	Force       bool      `json:"force"`
}

func (a *Adapter) podman() string {
	if a.Podman == "" {
		return "podman"
	}
	return a.Podman
}

// stateDirs are the directories the adapter keeps right below its root.
var stateDirs = []string{"pods", "storage", "run", "tmp", "net", "volumes", "starts", "cwd"}

// Open readies the root for a verb, as the reference runtime does its own (stateroot.Open): a
// root another user owns or could replace is refused before anything is made there (SUP-011),
// as is a directory of the adapter's below it that is a symbolic link or another user's; the
// root, and those directories, lose group and other write permission (SUP-012); the root is
// created, and made, 0700 (SEC-007). The directories below are podman's own.
func (a *Adapter) Open() error {
	abs, err := filepath.Abs(a.Root)
	if err != nil {
		return errorf(rtv1.CodeIO, "state root %s: %v", a.Root, err)
	}
	if err := stateroot.Open(abs, 0o700, nil, stateDirs); err != nil {
		if errors.Is(err, stateroot.ErrUntrusted) {
			return errorf(rtv1.CodeFailed, "%v", err) // refused, not an I/O fault
		}
		return errorf(rtv1.CodeIO, "%v", err)
	}
	return nil
}

// setup writes the podman configuration of the root (once).
func (a *Adapter) setup() error {
	for _, d := range stateDirs {
		if err := os.MkdirAll(filepath.Join(a.Root, d), 0o700); err != nil {
			return errorf(rtv1.CodeIO, "state root %s: %v", a.Root, err)
		}
	}
	conf := filepath.Join(a.Root, "containers.conf")
	if _, err := os.Stat(conf); err == nil {
		return nil
	}
	text := ContainersConf(a.Root)
	tmp := conf + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		return errorf(rtv1.CodeIO, "write %s: %v", conf, err)
	}
	if err := os.Rename(tmp, conf); err != nil {
		return errorf(rtv1.CodeIO, "write %s: %v", conf, err)
	}
	return nil
}

// ContainersConf is the containers.conf the adapter runs podman with, for a state root: rootful
// podman on a host without systemd as PID 1 and without CAP_SYS_RESOURCE needs cgroupfs, a file
// event log (under root) and rlimits within the host's hard limits. bench/scale runs podman with
// it too.
func ContainersConf(root string) string {
	return fmt.Sprintf(`[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = %q
tmp_dir = %q
[network]
network_config_dir = %q
`, filepath.Join(root, "events.log"), filepath.Join(root, "tmp"), filepath.Join(root, "net"))
}

// cmd is one podman invocation on this root.
func (a *Adapter) cmd(ctx context.Context, args ...string) *exec.Cmd {
	global := []string{"--root", filepath.Join(a.Root, "storage"), "--runroot", filepath.Join(a.Root, "run")}
	if a.OCIRuntime != "" {
		global = append(global, "--runtime", a.OCIRuntime)
	}
	c := exec.CommandContext(ctx, a.podman(), append(global, args...)...)
	c.Env = append(os.Environ(), "CONTAINERS_CONF="+filepath.Join(a.Root, "containers.conf"))
	// podman 4.3 starts conmon in its own working directory, and conmon 2.1 creates its OOM
	// marker file "oom" there (podman looks for it in the container's bundle directory, so it
	// never sees it: docs/certification/podman.md, STAT-004). A directory of the root's own
	// keeps those files out of the caller's directory.
	if dir := filepath.Join(a.Root, "cwd"); os.MkdirAll(dir, 0o700) == nil {
		c.Dir = dir
	}
	// podman dies with the adapter: a verb that is killed (a run cut short, SUP-010) must not
	// leave a podman command finishing its work after the next verb cleaned up (a `pod create`
	// making the pod again once a status removed it). The pod's start (startPod) is meant to
	// outlive the command and runs apart.
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return c
}

// run runs podman and returns its stdout; a failure carries podman's stderr.
func (a *Adapter) run(ctx context.Context, args ...string) ([]byte, error) {
	c := a.cmd(ctx, args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, errorf(rtv1.CodeRuntimeUnavailable, "podman: %v", err)
		}
		return out.Bytes(), errorf(rtv1.CodeFailed, "podman %s: %s", args[0], strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// VersionInfo is the adapter's `version` object: the contract's, and podman's own version.
type VersionInfo struct {
	rtv1.Version
	Podman string `json:"podman"`
}

// Version is the adapter's `version` object.
func (a *Adapter) Version(ctx context.Context) (*VersionInfo, error) {
	out, err := exec.CommandContext(ctx, a.podman(), "--version").Output()
	if err != nil {
		return nil, errorf(rtv1.CodeRuntimeUnavailable, "podman --version: %v", err)
	}
	root := a.Root
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	v := &VersionInfo{Podman: strings.TrimSpace(string(out)), Version: rtv1.Version{
		ContractVersion: rtv1.ContractVersion,
		Runtime:         rtv1.RuntimeInfo{Name: "podspec-podman", Version: "0.1.0"},
		// core and update: podman has no defer containers, no notifiers, no retention policy and
		// no supervisor to crash (conmon per container). Its in-place update is `podman update`
		// of a running container's limits; what else an update asks is refused (update.go),
		// and the suite grades the profile.
		Profiles: []rtv1.Profile{rtv1.ProfileCore, rtv1.ProfileUpdate},
		// Contract 1.2: everything podman keeps for the adapter's pods is under Root (setup,
		// cmd): its storage (--root) and run state (--runroot), tmp_dir (conmon's exit and
		// persist files), the network config, the event log, the volumes and the adapter's own
		// records. Left out, as not pod state: podman's shared-memory lock segment
		// (/dev/shm/libpod_lock), which holds locks, not data.
		StateDirectories: []string{root},
	}}
	rt := a.OCIRuntime
	if rt == "" {
		rt = "runc"
	}
	if path, err := exec.LookPath(rt); err == nil {
		ver, _ := exec.CommandContext(ctx, path, "--version").Output()
		line, _, _ := strings.Cut(string(ver), "\n")
		info := &rtv1.OCIRuntimeInfo{Name: filepath.Base(path), Path: path}
		if f := strings.Fields(line); len(f) >= 3 {
			info.Version = f[2]
		}
		v.OCIRuntime = info
	}
	return v, nil
}

func (a *Adapter) recordPath(name string) string { return filepath.Join(a.Root, "pods", name+".json") }

// readRecord reads the record of name, whole or a creation's (NotFound if there is none, IO if
// it cannot be read or decoded).
func (a *Adapter) readRecord(name string) (*podRecord, error) {
	b, err := os.ReadFile(a.recordPath(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, errorf(rtv1.CodeNotFound, "pod %q not found", name)
	}
	if err != nil {
		return nil, errorf(rtv1.CodeIO, "read pod %s: %v", name, err)
	}
	var r podRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, errorf(rtv1.CodeIO, "pod %s: corrupt record: %v", name, err)
	}
	return &r, nil
}

// load reads the record of pod name; a creation is not a pod (NotFound), and one whose run was
// killed is removed on the way.
func (a *Adapter) load(name string) (*podRecord, error) {
	r, err := a.readRecord(name)
	if err != nil {
		return nil, err
	}
	if r.Creator != nil {
		// Not a pod yet: its run is still creating it, or was killed doing so, and then what it
		// made is removed here, so that nothing of it is left and its name is free (SUP-010).
		if !r.Creator.alive() {
			a.reclaim(name, r.UID)
		}
		return nil, errorf(rtv1.CodeNotFound, "pod %q not found", name)
	}
	return r, nil
}

// reclaim removes what a killed run made of pod name (incarnation uid), if its record is still
// that of a creation whose creator is gone; under the pod's lock, so that a new run of the name
// that reserved it meanwhile keeps what it made. A verb that holds the lock (stop, update)
// leaves the leftovers to the next verb or run of the name, which reclaims them too.
func (a *Adapter) reclaim(name, uid string) {
	unlock, ok := a.tryLock(name)
	if !ok {
		return
	}
	defer unlock()
	r, err := a.readRecord(name)
	if err != nil || r.UID != uid || r.Creator == nil || r.Creator.alive() {
		return
	}
	a.removeCreation(context.Background(), r)
}

// reserve claims the name for rec, a record with its creator, by publishing the whole record
// under the name in one step (a hard link of a written file: it fails if the name exists, and
// no reader ever sees it partly written). A name held by a creation whose creator is gone is
// reclaimed first; one held by a pod, or by a run still creating it, is a Conflict.
func (a *Adapter) reserve(rec *podRecord) error {
	p := a.recordPath(rec.Name)
	tmp, err := a.writeTemp(rec)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	unlock, err := a.lock(rec.Name)
	if err != nil {
		return err
	}
	defer unlock()
	for attempt := 0; ; attempt++ {
		err := os.Link(tmp, p)
		if err == nil {
			return nil
		}
		if !errors.Is(err, os.ErrExist) {
			return errorf(rtv1.CodeIO, "create pod %s: %v", rec.Name, err)
		}
		r, rerr := a.readRecord(rec.Name)
		if rerr != nil || r.Creator == nil || attempt > 0 {
			return errorf(rtv1.CodeConflict, "pod %q already exists", rec.Name)
		}
		if r.Creator.alive() {
			return errorf(rtv1.CodeConflict, "pod %q already exists (a run is creating it)", rec.Name)
		}
		a.removeCreation(context.Background(), r) // a killed run's leftovers (SUP-010)
	}
}

// writeTemp writes the record to a file of its own beside where it goes, and names it.
func (a *Adapter) writeTemp(r *podRecord) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", a.recordPath(r.Name), os.Getpid())
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		os.Remove(tmp)
		return "", errorf(rtv1.CodeIO, "write pod %s: %v", r.Name, err)
	}
	return tmp, nil
}

// save writes the record atomically.
func (a *Adapter) save(r *podRecord) error {
	p := a.recordPath(r.Name)
	tmp, err := a.writeTemp(r)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return errorf(rtv1.CodeIO, "write pod %s: %v", r.Name, err)
	}
	return nil
}

// Unsupported lists what of spec podman cannot do as podspec defines it; a pod that asks for
// any of it is refused (Failed) rather than run with the feature ignored. Restart policies are
// mapped to podman's, which restarts without back-off: the suite's verdict on the back-off
// requirements is podman's (docs/certification/podman.md). Container ports without a hostPort
// are accepted: they only name ports for probes and hooks, which are refused. A hostPort is
// refused: podman publishes a port through a pod network with an interface, and the pod's
// namespace must have loopback only (SEC-009, network none).
func Unsupported(spec *v1alpha1.PodSpec) []string {
	var out []string
	if spec.ExitPolicy != "" && spec.ExitPolicy != v1alpha1.ExitPolicyAll {
		out = append(out, fmt.Sprintf("exitPolicy %s (podman's --exit-policy stop ends a pod when all its containers have exited: All only)", spec.ExitPolicy))
	}
	if spec.ActiveDeadlineSeconds != nil {
		out = append(out, "activeDeadlineSeconds (podman pods have no deadline)")
	}
	if len(spec.DeferContainers) > 0 {
		out = append(out, "deferContainers (profile defer is not declared)")
	}
	for _, v := range spec.Volumes {
		if v.Shared != nil {
			out = append(out, fmt.Sprintf("volume %s: shared volumes (profile gc is not declared)", v.Name))
		}
		if v.EmptyDir != nil && v.EmptyDir.SizeLimit != nil {
			out = append(out, fmt.Sprintf("volume %s: emptyDir sizeLimit", v.Name))
		}
	}
	check := func(kind string, c *v1alpha1.Container) {
		where := fmt.Sprintf("%s container %s", kind, c.Name)
		if kind == "init" && c.RestartPolicy != nil && *c.RestartPolicy == v1alpha1.RestartPolicyAlways {
			out = append(out, where+": sidecar (restartPolicy Always on an init container; podman has no sidecars)")
		}
		if len(c.DependsOn) > 0 {
			out = append(out, where+": dependsOn (podman orders starts, it does not wait for a condition)")
		}
		if c.StartupProbe != nil || c.ReadinessProbe != nil || c.LivenessProbe != nil {
			out = append(out, where+": probes (podman healthchecks run exec commands only and do not gate starts, readiness or restarts as podspec's probes do)")
		}
		if c.Lifecycle != nil {
			out = append(out, where+": lifecycle hooks (podman has no postStart/preStop, of exec, httpGet or sleep)")
		}
		if len(c.Notifiers) > 0 {
			out = append(out, where+": notifiers (profile notifier is not declared)")
		}
		if sc := c.SecurityContext; sc != nil && sc.RunAsUser == nil {
			if sc.RunAsGroup != nil {
				out = append(out, where+": securityContext.runAsGroup without runAsUser (podman's --user replaces the image's user too)")
			}
			if sc.RunAsNonRoot != nil && *sc.RunAsNonRoot {
				out = append(out, where+": securityContext.runAsNonRoot without runAsUser (podman does not refuse an image whose user is root)")
			}
		}
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				out = append(out, fmt.Sprintf("%s: hostPort %d (podman publishes ports through a pod network with an interface; the pod's namespace has loopback only)", where, p.HostPort))
			}
		}
		for _, rp := range c.ResizePolicy {
			if rp.RestartPolicy == v1alpha1.RestartContainer {
				out = append(out, fmt.Sprintf("%s: resizePolicy RestartContainer for %s (podman cannot restart a container with new limits: podman update changes the running instance only)", where, rp.ResourceName))
			}
		}
	}
	for i := range spec.InitContainers {
		check("init", &spec.InitContainers[i])
	}
	for i := range spec.Containers {
		check("main", &spec.Containers[i])
	}
	return out
}

// securityArgs are the `podman create` flags of a container's securityContext: always
// --security-opt no-new-privileges (SEC-001: podman leaves it unset unless asked), --user for
// runAsUser[:runAsGroup], --read-only without podman's tmpfs mounts on /tmp, /run and /var/tmp
// (the spec's read-only root filesystem has none), and --cap-drop before --cap-add, which
// podman applies in that order. runAsNonRoot is satisfied by a runAsUser other than 0, which
// validation requires of a container that sets both; without one, Unsupported refuses it.
func securityArgs(sc *v1alpha1.SecurityContext) []string {
	args := []string{"--security-opt", "no-new-privileges"}
	if sc == nil {
		return args
	}
	if sc.RunAsUser != nil {
		u := strconv.FormatInt(*sc.RunAsUser, 10)
		if sc.RunAsGroup != nil {
			u += ":" + strconv.FormatInt(*sc.RunAsGroup, 10)
		}
		args = append(args, "--user", u)
	}
	if sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem {
		args = append(args, "--read-only", "--read-only-tmpfs=false")
	}
	if c := sc.Capabilities; c != nil {
		for _, d := range c.Drop {
			args = append(args, "--cap-drop", string(d))
		}
		for _, a := range c.Add {
			args = append(args, "--cap-add", string(a))
		}
	}
	return args
}

// newUID returns a random UID for a pod incarnation: an RFC 9562 version 4 UUID.
func newUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// dnsLabel is a pod name: at most 63 of [a-z0-9-], alphanumeric at both ends.
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// Create creates and starts the pod (run --detach): every image is pulled from its OCI layout,
// the podman pod and its containers are created, and the pod is started. On failure nothing of
// it remains.
func (a *Adapter) Create(ctx context.Context, pod *v1alpha1.Pod, baseDir string) (*podRecord, error) {
	if err := a.setup(); err != nil {
		return nil, err
	}
	if _, err := exec.LookPath(a.podman()); err != nil {
		return nil, errorf(rtv1.CodeRuntimeUnavailable, "podman: %v", err)
	}
	if u := Unsupported(&pod.Spec); len(u) > 0 {
		return nil, errorf(rtv1.CodeFailed, "podman cannot run this pod as podspec defines it: %s", strings.Join(u, "; "))
	}
	name := pod.Metadata.Name
	if len(name) > 63 || !dnsLabel.MatchString(name) {
		return nil, &Error{Code: rtv1.CodeInvalidManifest, Message: fmt.Sprintf("invalid pod name %q: must be a DNS label", name),
			Findings: []finding.Finding{{Rule: spec.ID001, Severity: spec.SeverityOf(spec.ID001), Engine: "runtime", Path: "metadata.name",
				Message: fmt.Sprintf("invalid name %q: must be a DNS label (at most 63 of [a-z0-9-], starting and ending alphanumeric)", name)}}}
	}
	if _, err := a.load(name); err == nil {
		return nil, errorf(rtv1.CodeConflict, "pod %q already exists", name)
	}
	for _, v := range pod.Spec.Volumes {
		if v.HostPath != nil {
			if _, err := os.Stat(v.HostPath.Path); err != nil {
				return nil, errorf(rtv1.CodeFailed, "volume %s: hostPath %s: %v", v.Name, v.HostPath.Path, err)
			}
		}
	}
	// The name is reserved by the record, which names its creator until the pod is whole: a
	// run killed before then leaves a creation the next verb removes (SUP-010).
	rec := &podRecord{Name: name, UID: newUID(), CreatedAt: time.Now().UTC(), Spec: pod.Spec, Labels: pod.Metadata.Labels, Annotations: pod.Metadata.Annotations,
		Creator: self()}
	if err := a.reserve(rec); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			a.removeAll(context.WithoutCancel(ctx), rec)
		}
	}()
	images := map[string]pulledImage{}
	for _, c := range append(append([]v1alpha1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		if _, done := images[c.Image]; done {
			continue
		}
		img, err := a.pull(ctx, c.Image, c.ImagePullPolicy, baseDir)
		if err != nil {
			var pe *Error
			if errors.As(err, &pe) && !strings.Contains(pe.Message, c.Image) {
				pe.Message = "image " + c.Image + ": " + pe.Message
			}
			return nil, err
		}
		images[c.Image] = img
	}
	out, err := a.run(ctx, "pod", "create", "--name", name, "--exit-policy", "stop", "--network", "none",
		"--label", "podspec.uid="+rec.UID)
	if err != nil {
		return nil, err
	}
	rec.PodID = strings.TrimSpace(string(out))
	out, err = a.run(ctx, "pod", "inspect", "--format", "{{.InfraContainerID}}", name)
	if err != nil {
		return nil, err
	}
	rec.InfraID = strings.TrimSpace(string(out))
	if err := a.save(rec); err != nil {
		return nil, err
	}
	volDir := filepath.Join(a.Root, "volumes", rec.UID)
	for _, v := range pod.Spec.Volumes {
		if v.EmptyDir != nil {
			if err := os.MkdirAll(filepath.Join(volDir, v.Name), 0o777); err != nil {
				return nil, errorf(rtv1.CodeIO, "volume %s: %v", v.Name, err)
			}
		}
	}
	for _, kc := range []struct {
		kind string
		cs   []v1alpha1.Container
	}{{"init", pod.Spec.InitContainers}, {"main", pod.Spec.Containers}} {
		for _, c := range kc.cs {
			args, err := a.createArgs(rec, kc.kind, &c, images[c.Image].id, volDir)
			if err != nil {
				return nil, err
			}
			out, err := a.run(ctx, args...)
			if err != nil {
				return nil, err
			}
			rec.Containers = append(rec.Containers, containerRecord{Name: c.Name, Kind: kc.kind, ID: strings.TrimSpace(string(out)), Image: c.Image,
				ImageID: images[c.Image].imageID})
		}
	}
	// The start is launched (in a session of its own, so that it outlives this command) before
	// the record stops naming its creator: a pod whose record is whole has always been started.
	if err := a.startPod(rec); err != nil {
		return nil, err
	}
	rec.Creator = nil
	if err := a.save(rec); err != nil {
		return nil, err
	}
	ok = true
	return rec, nil
}

// startDir holds what the pod's `podman pod start` said: its stderr (err) and, once it
// returned, its exit status (rc).
func (a *Adapter) startDir(rec *podRecord) string { return filepath.Join(a.Root, "starts", rec.UID) }

// startPod runs `podman pod start` in a session of its own and returns without waiting: podman
// runs the init containers one after the other to completion before it starts the main
// containers, and `run --detach` does not wait for any container to start (contract 4.2; the
// pod is Pending meanwhile, EXIT-009). Its stderr and exit status are kept in startDir, from
// which status reads the containers podman could not start (StartError).
func (a *Adapter) startPod(rec *podRecord) error {
	dir := a.startDir(rec)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return errorf(rtv1.CodeIO, "pod %s: %v", rec.Name, err)
	}
	pc := a.cmd(context.Background(), "pod", "start", rec.Name)
	// sh records the exit status after podman returned, unless the pod was removed meanwhile.
	c := exec.Command("/bin/sh", append([]string{"-c", `"$@" 2>"$D/err"; rc=$?; [ -d "$D" ] && echo $rc >"$D/rc.tmp" && mv "$D/rc.tmp" "$D/rc"`, "sh"}, pc.Args...)...)
	c.Env, c.Dir = append(pc.Env, "D="+dir), pc.Dir
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := c.Start(); err != nil {
		return errorf(rtv1.CodeFailed, "podman pod start: %v", err)
	}
	go c.Wait()
	return c.Process.Release()
}

// startOutcome is what the pod's `podman pod start` reported once it returned.
type startOutcome struct {
	done   bool              // it returned
	failed bool              // with a non-zero status
	at     time.Time         // when it returned
	errors map[string]string // podman container ID → why podman could not start it
	last   string            // its last error line
}

// startErrorLine is how podman 4.3's `pod start` reports a container it could not start.
var startErrorLine = regexp.MustCompile(`starting container ([0-9a-f]{64}): (.*)`)

func (a *Adapter) startOutcome(rec *podRecord) startOutcome {
	dir := a.startDir(rec)
	fi, err := os.Stat(filepath.Join(dir, "rc"))
	if err != nil {
		return startOutcome{}
	}
	rc, _ := os.ReadFile(filepath.Join(dir, "rc"))
	o := startOutcome{done: true, failed: strings.TrimSpace(string(rc)) != "0", at: fi.ModTime().UTC(), errors: map[string]string{}}
	b, _ := os.ReadFile(filepath.Join(dir, "err"))
	for _, m := range startErrorLine.FindAllStringSubmatch(string(b), -1) {
		o.errors[m[1]] = strings.TrimSpace(m[2])
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l, ok := strings.CutPrefix(l, "Error: "); ok {
			o.last = l
		}
	}
	return o
}

// startError is why podman could not start container id, or "" when it did or may still.
// A pod start that failed without naming the container (its infra container could not start,
// say) failed it too, unless an init container failed: then podman rightly started no main
// container.
func (o startOutcome) startError(id string, initFailed bool) string {
	if msg := o.errors[id]; msg != "" {
		return msg
	}
	if o.failed && !initFailed {
		return "podman pod start: " + o.last
	}
	return ""
}

// pulledImage is an image podman holds for a pod: podman's image ID, and the imageID status
// reports (IMG-016).
type pulledImage struct {
	id, imageID string
}

// pull makes an image available to podman and returns it: a registry reference is handed to
// podman as it is, fully qualified as Kubernetes reads it (docker.io/library/ for a short name,
// which podman would otherwise resolve through its own search registries), with the pull
// policy; an oci:LAYOUT[:TAG] reference (relative to baseDir) is imported with podman's oci:
// transport.
func (a *Adapter) pull(ctx context.Context, ref string, policy v1alpha1.PullPolicy, baseDir string) (pulledImage, error) {
	rest, isOCI := strings.CutPrefix(ref, "oci:")
	if !isOCI {
		return a.pullRegistry(ctx, ref, policy)
	}
	path, tag := rest, ""
	if i := strings.LastIndex(rest, ":"); i > strings.LastIndex(rest, "/") {
		path, tag = rest[:i], rest[i+1:]
	}
	if strings.Contains(path, "@") {
		return pulledImage{}, errorf(rtv1.CodeFailed, "image %s: podman's oci: transport takes a tag, not a digest", ref)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(baseDir, path)
	}
	src := "oci:" + path
	if tag != "" {
		src += ":" + tag
	}
	id, err := a.pullID(ctx, src, "pull", "-q", src)
	if err != nil {
		return pulledImage{}, err
	}
	// podman names an image it imports from a layout localhost/PATH.
	return a.heldImage(ctx, id, "localhost"+path, "oci:"+path)
}

// heldImage is the image podman holds as ref (an image ID or a name), read with one `podman
// image inspect`: podman's image ID, and the imageID that names the image by the digest of its
// image manifest (IMG-016) as name@DIGEST, when podman's records say which manifest that is:
// the one digest among the image's RepoDigests for repo, the repository podman stored the image
// under. podman's own Digest is no answer: it is the digest of what a reference first named, a
// multi-platform index's for an image pulled through one. For such an image RepoDigests lists
// the index's digest beside its platform's manifest's (under each of the image's names), with
// nothing that tells them apart; the imageID is then left empty rather than guessed (IMG-015's
// spec fails on it: docs/certification/triage/podman.yaml). An error is podman's: it holds no
// such image, or could not say.
func (a *Adapter) heldImage(ctx context.Context, ref, repo, name string) (pulledImage, error) {
	out, err := a.run(ctx, "image", "inspect", "--format", "{{.Id}} {{range .RepoDigests}}{{.}} {{end}}", ref)
	if err != nil {
		return pulledImage{}, err
	}
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return pulledImage{}, errorf(rtv1.CodeFailed, "podman image inspect %s printed no image ID", ref)
	}
	var digests []string
	for _, rd := range fields[1:] {
		if d, ok := strings.CutPrefix(rd, repo+"@"); ok {
			digests = append(digests, d)
		}
	}
	img := pulledImage{id: fields[0]}
	if len(digests) == 1 {
		img.imageID = name + "@" + digests[0]
	}
	return img, nil
}

// pullID runs `podman pull` with args and returns the image ID it prints last; what names the
// image in the error when it prints none.
func (a *Adapter) pullID(ctx context.Context, what string, args ...string) (string, error) {
	out, err := a.run(ctx, args...)
	if err != nil {
		return "", err
	}
	lines := strings.Fields(string(out))
	if len(lines) == 0 {
		return "", errorf(rtv1.CodeFailed, "podman pull %s printed no image ID", what)
	}
	return lines[len(lines)-1], nil
}

// pullRegistry is `podman pull` of a registry reference, unless the policy lets an image podman
// holds serve (podman 4's pull has no --policy). A loopback registry may be plain HTTP
// (IMG-024), which podman allows with --tls-verify=false only.
func (a *Adapter) pullRegistry(ctx context.Context, ref string, policy v1alpha1.PullPolicy) (pulledImage, error) {
	r, err := imageref.Parse(ref)
	if err != nil {
		return pulledImage{}, errorf(rtv1.CodeFailed, "image %s: %v", ref, err)
	}
	if policy == "" {
		policy = v1alpha1.DefaultPullPolicy(ref)
	}
	name := r.String()
	// HOST/PATH, as podman records a registry image's RepoDigests and IMG-016 names it.
	repo := r.Registry() + "/" + r.Name.Context().RepositoryStr()
	if policy != v1alpha1.PullAlways {
		// One inspect answers for an image podman holds: its ID and its digests.
		if img, err := a.heldImage(ctx, name, repo, repo); err == nil {
			return img, nil
		}
		if policy == v1alpha1.PullNever {
			return pulledImage{}, errorf(rtv1.CodeFailed, "image %s: imagePullPolicy is Never and podman holds no such image", ref)
		}
	}
	args := []string{"pull", "-q"}
	if host, _, err := net.SplitHostPort(r.Registry()); err == nil && isLoopback(host) || isLoopback(r.Registry()) {
		args = append(args, "--tls-verify=false")
	}
	id, err := a.pullID(ctx, name, append(args, "docker://"+name)...)
	if err != nil {
		return pulledImage{}, err
	}
	return a.heldImage(ctx, id, repo, repo)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// createArgs is the `podman create` of one container.
func (a *Adapter) createArgs(rec *podRecord, kind string, c *v1alpha1.Container, image, volDir string) ([]string, error) {
	args := []string{"create", "--pod", rec.Name, "--name", rec.Name + "-" + c.Name,
		"--label", "podspec.container=" + c.Name, "--label", "podspec.uid=" + rec.UID}
	if kind == "init" {
		args = append(args, "--init-ctr", "always")
	}
	args = append(args, "--restart", podmanRestart(kind, rec.Spec.RestartPolicy, c.RestartPolicy))
	grace := int64(30)
	if rec.Spec.TerminationGracePeriodSeconds != nil {
		grace = *rec.Spec.TerminationGracePeriodSeconds
	}
	args = append(args, "--stop-timeout", strconv.FormatInt(grace, 10))
	if c.StopSignal != "" {
		args = append(args, "--stop-signal", c.StopSignal)
	}
	if c.WorkingDir != "" {
		args = append(args, "--workdir", c.WorkingDir)
	}
	for _, e := range c.Env {
		args = append(args, "--env", e.Name+"="+e.Value)
	}
	for _, r := range []v1alpha1.ResourceName{v1alpha1.ResourceMemory, v1alpha1.ResourceCPU, v1alpha1.ResourcePIDs} {
		l, err := limitArgs(c.Resources, r)
		if err != nil {
			return nil, errorf(rtv1.CodeFailed, "container %s: %v", c.Name, err)
		}
		args = append(args, l...)
	}
	vols := map[string]v1alpha1.Volume{}
	for _, v := range rec.Spec.Volumes {
		vols[v.Name] = v
	}
	for _, m := range c.VolumeMounts {
		v := vols[m.Name]
		src := filepath.Join(volDir, v.Name)
		if v.HostPath != nil {
			src = v.HostPath.Path
		}
		opt := "rw"
		if m.ReadOnly {
			opt = "ro"
		}
		if v.EmptyDir != nil && v.EmptyDir.Medium == "Memory" {
			args = append(args, "--mount", "type=tmpfs,destination="+m.MountPath)
			continue
		}
		args = append(args, "--volume", src+":"+m.MountPath+":"+opt)
	}
	args = append(args, securityArgs(c.SecurityContext)...)
	if len(c.Command) > 0 {
		args = append(args, "--entrypoint", mustJSON(c.Command))
	}
	args = append(args, image)
	args = append(args, c.Args...)
	return args, nil
}

// podmanRestart is podman's --restart for a container: its own restart policy, else the pod's;
// a regular init container's Always is OnFailure (INIT-002). podman restarts an init container
// inside `pod start`, which starts the main containers once it exited 0.
func podmanRestart(kind string, pod v1alpha1.RestartPolicy, own *v1alpha1.RestartPolicy) string {
	p := pod
	if own != nil {
		p = *own
	}
	if kind == "init" && p == v1alpha1.RestartPolicyAlways {
		p = v1alpha1.RestartPolicyOnFailure
	}
	switch p {
	case v1alpha1.RestartPolicyAlways:
		return "always"
	case v1alpha1.RestartPolicyOnFailure:
		return "on-failure"
	}
	return "no"
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// removeAll removes the podman pod, its volumes, the record and the pod's lock file, whatever
// exists of them.
func (a *Adapter) removeAll(ctx context.Context, rec *podRecord) {
	a.removeContents(ctx, rec)
	os.Remove(filepath.Join(a.Root, "locks", rec.Name))
}

// removeCreation removes what a killed run made (removeContents, the caller holds the lock) and
// what a `podman create` killed midway can leave: a container in podman's storage that its
// database never got, holding the container's name, which `pod rm` does not see and
// `rm --storage` removes.
func (a *Adapter) removeCreation(ctx context.Context, rec *podRecord) {
	a.removeContents(ctx, rec)
	for _, cs := range [][]v1alpha1.Container{rec.Spec.InitContainers, rec.Spec.Containers} {
		for _, c := range cs {
			_, _ = a.run(ctx, "rm", "--storage", "--force", "--ignore", rec.Name+"-"+c.Name)
		}
	}
}

// removeContents is removeAll without the lock file, for a caller that holds the lock.
func (a *Adapter) removeContents(ctx context.Context, rec *podRecord) {
	if rec.PodID != "" || rec.Name != "" {
		_, _ = a.run(ctx, "pod", "rm", "--force", "--ignore", rec.Name)
	}
	os.RemoveAll(filepath.Join(a.Root, "volumes", rec.UID))
	os.RemoveAll(a.startDir(rec))
	os.Remove(a.recordPath(rec.Name))
}

// inspected is what the adapter reads of a podman container.
type inspected struct {
	ID           string `json:"Id"`
	RestartCount int32  `json:"RestartCount"`
	State        struct {
		Status     string    `json:"Status"`
		Running    bool      `json:"Running"`
		ExitCode   int32     `json:"ExitCode"`
		OOMKilled  bool      `json:"OOMKilled"`
		StartedAt  time.Time `json:"StartedAt"`
		FinishedAt time.Time `json:"FinishedAt"`
		Error      string    `json:"Error"`
	} `json:"State"`
}

func (a *Adapter) inspect(ctx context.Context, rec *podRecord) (map[string]*inspected, error) {
	out := map[string]*inspected{}
	if len(rec.Containers) == 0 {
		return out, nil
	}
	args := []string{"container", "inspect"}
	for _, c := range rec.Containers {
		args = append(args, c.ID)
	}
	b, err := a.run(ctx, args...)
	if err != nil {
		return nil, err
	}
	var list []inspected
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, errorf(rtv1.CodeFailed, "podman container inspect: %v", err)
	}
	for i := range list {
		out[list[i].ID] = &list[i]
	}
	return out, nil
}

// Status is the pod's PodStatus, read from podman.
func (a *Adapter) Status(ctx context.Context, name string) (*v1alpha1.PodStatus, error) {
	rec, err := a.load(name)
	if err != nil {
		return nil, err
	}
	ins, err := a.inspect(ctx, rec)
	if err != nil {
		return nil, err
	}
	// podman restarts a container in place, and its inspect holds only the running instance's
	// state: the previous instance's end, the lastState (STAT-008), is in podman's event log,
	// read after the inspect so that it holds the end of every instance before the inspected one.
	var logged []Event
	for _, in := range ins {
		if in.RestartCount > 0 {
			log, err := a.eventLog(ctx, rec)
			if err != nil {
				return nil, err
			}
			logged = translateLog(rec, log)
			break
		}
	}
	start := a.startOutcome(rec)
	// Every accepted update took effect before it was recorded (Update): observed is current.
	st := &v1alpha1.PodStatus{UID: rec.UID, Phase: v1alpha1.PodPending, ObservedGeneration: rec.generation()}
	anyStarted, allDone, failed := false, true, false
	initFailed := false
	for _, c := range rec.Containers {
		if in := ins[c.ID]; c.Kind == "init" && in != nil && !in.State.Running && in.State.ExitCode != 0 {
			initFailed = true
		}
	}
	// The deciding container: of a Failed pod the one whose failing exit came first (EXIT-015),
	// of a Succeeded pod the last to exit (exitPolicy All fired at its exit), none when a stop
	// request ended the pod (EXIT-016, EXIT-018).
	var decidedBy, lastName string
	var exitCode int32
	var finished, failedAt time.Time
	fail := func(name string, code int32, at time.Time) {
		if !failed || at.Before(failedAt) {
			failed, decidedBy, exitCode, failedAt = true, name, code, at
		}
	}
	for _, c := range rec.Containers {
		in := ins[c.ID]
		cs := v1alpha1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: c.ImageID}
		if in == nil {
			cs.State.Waiting = &v1alpha1.ContainerStateWaiting{Reason: "ContainerGone"}
			allDone = false
		} else {
			cs.ContainerID = instanceID(c.ID, in.RestartCount)
			cs.RestartCount = in.RestartCount
			if in.RestartCount > 0 {
				cs.LastState.Terminated = instanceEnd(logged, c.Name, in.RestartCount-1)
			}
			switch {
			case in.State.Running:
				allDone = false
				anyStarted = anyStarted || c.Kind == "main"
				cs.Started, cs.Ready = true, true
				cs.State.Running = &v1alpha1.ContainerStateRunning{StartedAt: in.State.StartedAt.UTC()}
			case in.State.Status == "exited" || in.State.Status == "stopped":
				anyStarted = anyStarted || c.Kind == "main"
				code := in.State.ExitCode
				stopped := rec.stoppedBy(in.State.FinishedAt)
				reason := terminationReason(code, in.State.OOMKilled, stopped)
				cs.State.Terminated = &v1alpha1.ContainerStateTerminated{ExitCode: &code, Reason: reason,
					StartedAt: in.State.StartedAt.UTC(), FinishedAt: in.State.FinishedAt.UTC(), OOMKilled: in.State.OOMKilled, ContainerID: cs.ContainerID}
				if c.Kind == "main" {
					if code != 0 && !(stopped && code > 128) {
						fail(c.Name, code, in.State.FinishedAt)
					}
					if in.State.FinishedAt.After(finished) {
						finished, lastName = in.State.FinishedAt, c.Name
					}
				}
			case in.State.StartedAt.IsZero() && start.startError(c.ID, initFailed) != "":
				// podman could not start it (pod start said why) and left it "created", with
				// nothing of the failure in its state: the process never ran (StartError).
				at := start.at
				cs.State.Terminated = &v1alpha1.ContainerStateTerminated{Reason: v1alpha1.ReasonStartError, Message: start.startError(c.ID, initFailed),
					StartedAt: at, FinishedAt: at, ContainerID: cs.ContainerID}
				if c.Kind == "main" {
					fail(c.Name, 1, at) // neither exitCode nor signal (EXIT-017)
				}
			default:
				allDone = false
				cs.State.Waiting = &v1alpha1.ContainerStateWaiting{Reason: "ContainerCreating"}
			}
		}
		if c.Kind == "init" {
			st.InitContainerStatuses = append(st.InitContainerStatuses, cs)
		} else {
			st.ContainerStatuses = append(st.ContainerStatuses, cs)
		}
	}
	created := rec.CreatedAt
	if anyStarted { // Running once a main container started (Pending while init containers run)
		st.Phase = v1alpha1.PodRunning
		st.StartedAt = &created
	}
	if !failed && (len(rec.Stops) == 0 || rec.Stops[0].Time.After(finished)) {
		decidedBy = lastName
	}
	if allDone && anyStarted && a.podExited(ctx, rec) {
		st.Phase = v1alpha1.PodSucceeded
		if failed {
			st.Phase = v1alpha1.PodFailed
		}
		st.ExitCode = &exitCode
		st.DecidedBy = decidedBy
		st.Reason = v1alpha1.ReasonCompleted
		if failed {
			st.Reason = "Failed"
		}
		if len(rec.Stops) > 0 && !rec.Stops[0].Time.After(finished) { // the stop began the sequence (EXIT-020)
			st.Reason = v1alpha1.ReasonStopped
		}
		f := finished.UTC()
		st.FinishedAt = &f
	} else if len(rec.Stops) > 0 {
		t := rec.Stops[0].Time
		st.Conditions = append(st.Conditions, v1alpha1.PodCondition{Type: v1alpha1.PodTerminating, Status: v1alpha1.ConditionTrue, LastTransitionTime: &t})
		// The termination reason from the sequence's beginning, as the terminal status keeps it
		// (EXIT-020).
		st.Reason = v1alpha1.ReasonStopped
	}
	return st, nil
}

// instanceEnd is the termination of instance n of container name as its ContainerExited in evs
// (translateLog's) records it, started at its ContainerStarted; nil when evs have no end of it.
// The event log is all podman keeps of an instance it restarted: neither a signal nor oomKilled.
func instanceEnd(evs []Event, name string, n int32) *v1alpha1.ContainerStateTerminated {
	var t *v1alpha1.ContainerStateTerminated
	var started time.Time
	for _, e := range evs {
		if e.Container != name || e.RestartCount == nil || *e.RestartCount != n {
			continue
		}
		switch e.Type {
		case rtv1.EventContainerStarted:
			started = e.Time
		case rtv1.EventContainerExited:
			t = &v1alpha1.ContainerStateTerminated{ExitCode: e.ExitCode, Signal: e.Signal, Reason: e.Reason, Message: e.Message,
				FinishedAt: e.Time.UTC(), ContainerID: e.ContainerID}
		}
	}
	if t != nil {
		t.StartedAt = started.UTC()
	}
	return t
}

// stoppedBy reports whether an instance that finished at t ended after the pod's first stop
// request: the stop ended it, so its exit is no failure (EXIT-013).
func (r *podRecord) stoppedBy(t time.Time) bool {
	return len(r.Stops) > 0 && !t.Before(r.Stops[0].Time)
}

// terminationReason is an instance's reason: OOMKilled when podman says so and SIGKILL ended the
// process (podman reports it as exit code 137; STAT-006), Stopped when the pod's stop ended it,
// else Completed or Error by its exit code.
func terminationReason(code int32, oom, stopped bool) string {
	switch {
	case oom && code == 128+int32(syscall.SIGKILL):
		return v1alpha1.ReasonOOMKilled
	case stopped:
		return v1alpha1.ReasonStopped
	case code != 0:
		return v1alpha1.ReasonError
	}
	return v1alpha1.ReasonCompleted
}

// podExited reports whether podman says the pod has exited (its infra stopped by the exit
// policy or a stop).
func (a *Adapter) podExited(ctx context.Context, rec *podRecord) bool {
	b, err := a.run(ctx, "pod", "inspect", "--format", "{{.State}}", rec.Name)
	if err != nil {
		return false
	}
	s := strings.TrimSpace(string(b))
	return s == "Exited" || s == "Stopped"
}

// instanceID names one instance of a podman container: podman keeps one container ID across
// restarts, podspec gives every instance its own.
func instanceID(id string, restarts int32) string {
	return fmt.Sprintf("%s-%d", id[:min(12, len(id))], restarts)
}

// UID is the UID of pod name.
func (a *Adapter) UID(name string) (string, error) {
	rec, err := a.load(name)
	if err != nil {
		return "", err
	}
	return rec.UID, nil
}

// Stop records a stop request and has podman stop the pod, without waiting for it.
func (a *Adapter) Stop(ctx context.Context, name string, grace *int64, force bool) error {
	unlock, err := a.lock(name)
	if err != nil {
		return err
	}
	defer unlock()
	rec, err := a.load(name)
	if err != nil {
		return err
	}
	st, err := a.Status(ctx, name)
	if err != nil {
		return err
	}
	if st.Phase == v1alpha1.PodSucceeded || st.Phase == v1alpha1.PodFailed {
		return nil
	}
	g := int64(30)
	if rec.Spec.TerminationGracePeriodSeconds != nil {
		g = *rec.Spec.TerminationGracePeriodSeconds
	}
	if grace != nil {
		g = *grace
	}
	if force {
		g = 0
	}
	rec.Stops = append(rec.Stops, stopRequest{Time: time.Now().UTC(), GracePeriod: g, Force: force || g == 0})
	if err := a.save(rec); err != nil {
		return err
	}
	// podman pod stop blocks until the pod is down: it runs on in a session of its own.
	c := a.cmd(context.WithoutCancel(ctx), "pod", "stop", "--time", strconv.FormatInt(g, 10), name)
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := c.Start(); err != nil {
		return errorf(rtv1.CodeFailed, "podman pod stop: %v", err)
	}
	go c.Wait()
	return c.Process.Release()
}

// Wait blocks until the pod is terminal (polling podman) or timeout (0: none) has passed.
func (a *Adapter) Wait(ctx context.Context, name string, timeout time.Duration) (*v1alpha1.PodStatus, error) {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		st, err := a.Status(ctx, name)
		if err != nil {
			return nil, err
		}
		if st.Phase == v1alpha1.PodSucceeded || st.Phase == v1alpha1.PodFailed {
			return st, nil
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return nil, errorf(rtv1.CodeTimeout, "pod %s is not terminal after %s", name, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Logs is `podman logs` of the container; podman keeps one log across restarts, so a previous
// instance's own output cannot be told apart.
func (a *Adapter) Logs(ctx context.Context, name, container string, previous bool) ([]byte, error) {
	rec, err := a.load(name)
	if err != nil {
		return nil, err
	}
	for _, c := range rec.Containers {
		if c.Name != container {
			continue
		}
		if previous {
			ins, err := a.inspect(ctx, rec)
			if err != nil {
				return nil, err
			}
			if in := ins[c.ID]; in != nil && in.RestartCount > 0 {
				return nil, errorf(rtv1.CodeFailed, "podman keeps one log for all instances of a container: the previous instance's output cannot be told apart")
			}
			return nil, nil
		}
		c := a.cmd(ctx, "logs", c.ID)
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		if err := c.Run(); err != nil {
			return nil, errorf(rtv1.CodeFailed, "podman logs: %v: %s", err, out.String())
		}
		return out.Bytes(), nil
	}
	return nil, errorf(rtv1.CodeNotFound, "pod %s has no container %q", name, container)
}

// ListEntry is one element of `list`.
type ListEntry struct {
	Name      string            `json:"name"`
	UID       string            `json:"uid"`
	Phase     v1alpha1.PodPhase `json:"phase"`
	CreatedAt time.Time         `json:"createdAt"`
}

// List lists every pod of the root, sorted by name.
func (a *Adapter) List(ctx context.Context) ([]ListEntry, error) {
	entries, err := os.ReadDir(filepath.Join(a.Root, "pods"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, errorf(rtv1.CodeIO, "list: %v", err)
	}
	out := []ListEntry{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		rec, err := a.load(name)
		if err != nil {
			continue // being created or removed
		}
		phase := v1alpha1.PodPending
		if st, err := a.Status(ctx, name); err == nil {
			phase = st.Phase
		}
		out = append(out, ListEntry{Name: rec.Name, UID: rec.UID, Phase: phase, CreatedAt: rec.CreatedAt})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Remove removes a terminal pod (or, with force, any pod after killing it).
func (a *Adapter) Remove(ctx context.Context, name string, force bool) error {
	rec, err := a.load(name)
	if err != nil {
		return err
	}
	if !force {
		st, err := a.Status(ctx, name)
		if err != nil {
			return err
		}
		if st.Phase != v1alpha1.PodSucceeded && st.Phase != v1alpha1.PodFailed {
			return errorf(rtv1.CodeConflict, "pod %s is %s, not terminal (use --force)", name, st.Phase)
		}
	}
	if _, err := a.run(ctx, "pod", "rm", "--force", "--time", "0", "--ignore", rec.Name); err != nil {
		return err
	}
	a.removeAll(ctx, rec)
	return nil
}
