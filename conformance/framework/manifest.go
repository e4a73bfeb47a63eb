package framework

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
)

// Paths inside every test container.
const (
	// ProbeMount is where the harness's per-pod directory (socket, counters, markers) is mounted.
	ProbeMount = "/probe"
	// probeVolume is the name of the hostPath volume holding ProbeMount.
	probeVolume = "probe"
	// EnvRunID carries the run ID into every container (the leak check looks for it).
	EnvRunID = "PODSPEC_CONFORMANCE_RUN"
)

// Workload is the command line of podspec-probe for a container's own process.
type Workload struct {
	args    []string
	counted bool
}

// Exit is a workload that exits with code at once.
func Exit(code int) Workload { return Workload{args: []string{"-exit", strconv.Itoa(code)}} }

// ExitAfter is a workload that exits with code after d.
func ExitAfter(code int, d time.Duration) Workload {
	return Workload{args: []string{"-exit", strconv.Itoa(code), "-after", d.String()}}
}

// Loop is a workload that runs until a signal with an exit action (by default SIGTERM/SIGINT,
// which exit 0 at once).
func Loop() Workload { return Workload{args: []string{"-loop"}} }

func (w Workload) with(args ...string) Workload {
	w.args = append(append([]string(nil), w.args...), args...)
	return w
}

// On sets what the workload does on a signal: "exit", "exit:LINGER:CODE" or "ignore".
func (w Workload) On(signal, action string) Workload { return w.with("-on", signal+"="+action) }

// Report makes the workload report its environment after starting.
func (w Workload) Report() Workload { return w.with(probe.ReportFlag) }

// Read adds a file to the report.
func (w Workload) Read(path string) Workload { return w.with("-read", path) }

// Write makes the workload write a file at start.
func (w Workload) Write(path, content string) Workload { return w.with("-write", path+"="+content) }

// Touch makes the workload create a file after delay.
func (w Workload) Touch(path string, delay time.Duration) Workload {
	return w.with("-touch", path, "-touch-delay", delay.String())
}

// WaitFor makes the workload start its -after and -crash-after delays only once file exists in
// the probe directory: a rendezvous that orders two containers without relying on how fast the
// runtime starts them.
func (w Workload) WaitFor(file string) Workload { return w.with("-wait-for", ProbeMount+"/"+file) }

// Announce makes the workload create file in the probe directory as soon as it starts (the other
// side of WaitFor); "{instance}" in file becomes the instance number (with Counted or Codes).
func (w Workload) Announce(file string) Workload {
	return w.with("-touch", ProbeMount+"/"+file, "-touch-delay", "0s")
}

// CrashAfter makes the workload die from SIGSEGV after d.
func (w Workload) CrashAfter(d time.Duration) Workload { return w.with("-crash-after", d.String()) }

// CoreInto makes the workload, when it crashes, allow a core dump into dir, a directory it
// creates in the probe directory: dumpable, RLIMIT_CORE at its hard limit, dir as working
// directory (where a core_pattern without a directory puts the core).
func (w Workload) CoreInto(dir string) Workload { return w.with("-crash-core", ProbeMount+"/"+dir) }

// NoCore makes the workload, when it crashes, non-dumpable: the kernel dumps no core.
func (w Workload) NoCore() Workload { return w.with("-crash-no-core") }

// Fill makes the workload write a file of n bytes (not sparse) at start, after the -write files.
func (w Workload) Fill(path string, n int64) Workload {
	return w.with("-fill", path+"="+strconv.FormatInt(n, 10))
}

// Stdout makes the workload print a line at start.
func (w Workload) Stdout(line string) Workload { return w.with("-stdout", line) }

// Flood makes the workload write n bytes to its standard output at start, as fast as it can, in
// numbered lines of probe.FloodLine bytes; a failed write ends it with probe.FloodFailed.
func (w Workload) Flood(n int64) Workload { return w.with("-flood", strconv.FormatInt(n, 10)) }

// ServeHTTP makes the workload serve HTTP on addr (IP:PORT inside the pod), answering the
// Route plans and 404 to other paths, and reporting each request (probe.TypeRequest).
func (w Workload) ServeHTTP(addr string) Workload { return w.with("-http", addr) }

// ServeHTTPS is ServeHTTP over TLS, with a certificate the workload signs itself at start.
func (w Workload) ServeHTTPS(addr string) Workload { return w.with("-https", addr) }

// Route gives the HTTP servers' answers to path: request n gets answers[n-1] (the last repeats),
// each CODE[@DELAY][>LOCATION], e.g. "200", "503@3s", "302>/elsewhere".
func (w Workload) Route(path string, answers ...string) Workload {
	return w.with("-route", path+"="+strings.Join(answers, ","))
}

// ServeTCP makes the workload listen for TCP on addr, reporting each connection, and close the
// listener after accepts connections (0: never).
func (w Workload) ServeTCP(addr string, accepts int) Workload {
	if accepts > 0 {
		addr += "=" + strconv.Itoa(accepts)
	}
	return w.with("-tcp", addr)
}

// ServeGRPC makes the workload serve grpc.health.v1 on addr, reporting each Check, with the
// statuses given as SERVICE=SERVING|NOT_SERVING (the service "" is SERVING unless given).
func (w Workload) ServeGRPC(addr string, statuses ...string) Workload {
	w = w.with("-grpc", addr)
	for _, st := range statuses {
		w = w.with("-grpc-status", st)
	}
	return w
}

// Counted makes the workload count its instances in a file on the probe volume, so that its
// events carry instance numbers.
func (w Workload) Counted() Workload { w.counted = true; return w }

// Codes gives each instance its own plan (an exit code or "loop"; the last repeats).
func (w Workload) Codes(plan ...string) Workload {
	s := ""
	for i, p := range plan {
		if i > 0 {
			s += ","
		}
		s += p
	}
	w = w.with("-codes", s)
	w.counted = true
	return w
}

// command renders the probe command for container name.
func (w Workload) command(name string) []string {
	cmd := []string{ProbePath, "run", "-name", name}
	if w.counted {
		cmd = append(cmd, "-counter", ProbeMount+"/"+name+".instances")
	}
	return append(cmd, w.args...)
}

// Handler is a probe-backed hook, notifier or probe command.
type Handler struct{ args []string }

// HookHandler runs for sleep and exits with code.
func HookHandler(sleep time.Duration, code int) Handler {
	return Handler{args: []string{"-sleep", sleep.String(), "-exit", strconv.Itoa(code)}}
}

// CheckMarker succeeds while file exists under the probe directory (the harness can create it
// with Pod.Touch).
func CheckMarker(file string) Handler {
	return Handler{args: []string{"-marker", ProbeMount + "/" + file}}
}

// CheckExit always exits with code.
func CheckExit(code int) Handler { return Handler{args: []string{"-exit", strconv.Itoa(code)}} }

// ContainerOpt changes a container after its name, image and command are set.
type ContainerOpt func(*v1alpha1.Container)

// WithRestartPolicy sets the container's own restart policy.
func WithRestartPolicy(p v1alpha1.RestartPolicy) ContainerOpt {
	return func(c *v1alpha1.Container) { c.RestartPolicy = &p }
}

// WithStopSignal sets the container's stop signal.
func WithStopSignal(sig string) ContainerOpt {
	return func(c *v1alpha1.Container) { c.StopSignal = sig }
}

// DependsOn adds a dependency.
func DependsOn(name string, cond v1alpha1.DependencyCondition) ContainerOpt {
	return func(c *v1alpha1.Container) {
		c.DependsOn = append(c.DependsOn, v1alpha1.Dependency{Name: name, Condition: cond})
	}
}

// WithEnv adds an environment variable.
func WithEnv(name, value string) ContainerOpt {
	return func(c *v1alpha1.Container) { c.Env = append(c.Env, v1alpha1.EnvVar{Name: name, Value: value}) }
}

// WithWorkingDir sets the container's workingDir.
func WithWorkingDir(dir string) ContainerOpt {
	return func(c *v1alpha1.Container) { c.WorkingDir = dir }
}

func execHandler(kind, container, handler string, h Handler) *v1alpha1.ExecAction {
	cmd := []string{ProbePath, kind, "-name", container, "-handler", handler}
	return &v1alpha1.ExecAction{Command: append(cmd, h.args...)}
}

// PostStart declares a postStart exec hook backed by the probe.
func PostStart(h Handler) ContainerOpt {
	return func(c *v1alpha1.Container) {
		PostStartAction(v1alpha1.LifecycleHandler{Exec: execHandler("hook", c.Name, "postStart", h)})(c)
	}
}

// PreStop declares a preStop exec hook backed by the probe.
func PreStop(h Handler) ContainerOpt {
	return func(c *v1alpha1.Container) {
		PreStopAction(v1alpha1.LifecycleHandler{Exec: execHandler("hook", c.Name, "preStop", h)})(c)
	}
}

// PostStartAction declares a postStart hook with any handler (e.g. httpGet).
func PostStartAction(h v1alpha1.LifecycleHandler) ContainerOpt {
	return func(c *v1alpha1.Container) { lifecycle(c).PostStart = &h }
}

// PreStopAction declares a preStop hook with any handler (e.g. httpGet).
func PreStopAction(h v1alpha1.LifecycleHandler) ContainerOpt {
	return func(c *v1alpha1.Container) { lifecycle(c).PreStop = &h }
}

// lifecycle returns the container's hooks, made empty first if it has none.
func lifecycle(c *v1alpha1.Container) *v1alpha1.Lifecycle {
	if c.Lifecycle == nil {
		c.Lifecycle = &v1alpha1.Lifecycle{}
	}
	return c.Lifecycle
}

// ProbeTiming sets a probe's period, failure threshold, initial delay and timeout (seconds).
type ProbeTiming struct {
	PeriodSeconds, FailureThreshold, InitialDelaySeconds, TimeoutSeconds int32
}

// DefaultCheckTimeoutSeconds is the timeoutSeconds of probe-backed checks unless a test sets
// one: a check is a `runc exec` of the probe plus one socket round trip, which can take more than
// the API's 1 s default on a loaded machine, and only tests about timeouts need the default.
const DefaultCheckTimeoutSeconds = 5

func checkProbe(kind, container string, h Handler, t ProbeTiming) *v1alpha1.Probe {
	return &v1alpha1.Probe{
		Exec:                execHandler("check", container, kind, h),
		PeriodSeconds:       t.PeriodSeconds,
		FailureThreshold:    t.FailureThreshold,
		InitialDelaySeconds: t.InitialDelaySeconds,
		TimeoutSeconds:      cmp.Or(t.TimeoutSeconds, DefaultCheckTimeoutSeconds),
	}
}

// Probe kinds, as NetProbe takes them and a probe command reports them.
const (
	ProbeStartup   = "startup"
	ProbeReadiness = "readiness"
	ProbeLiveness  = "liveness"
)

// NetProbe declares a probe of kind (ProbeStartup, ProbeReadiness, ProbeLiveness) whose handler
// is set in p (httpGet, tcpSocket or grpc), with timing t (timeoutSeconds 1 unless set: a
// network check needs no exec).
func NetProbe(kind string, p v1alpha1.Probe, t ProbeTiming) ContainerOpt {
	p.PeriodSeconds, p.FailureThreshold = t.PeriodSeconds, t.FailureThreshold
	p.InitialDelaySeconds, p.TimeoutSeconds = t.InitialDelaySeconds, cmp.Or(t.TimeoutSeconds, 1)
	return func(c *v1alpha1.Container) {
		switch kind {
		case ProbeStartup:
			c.StartupProbe = &p
		case ProbeReadiness:
			c.ReadinessProbe = &p
		case ProbeLiveness:
			c.LivenessProbe = &p
		default:
			panic("framework: unknown probe kind " + kind)
		}
	}
}

// WithPorts adds container ports (named ports for httpGet and tcpSocket handlers).
func WithPorts(ports ...v1alpha1.ContainerPort) ContainerOpt {
	return func(c *v1alpha1.Container) { c.Ports = append(c.Ports, ports...) }
}

// Readiness declares a readiness probe backed by the probe binary.
func Readiness(h Handler, t ProbeTiming) ContainerOpt {
	return func(c *v1alpha1.Container) { c.ReadinessProbe = checkProbe("readiness", c.Name, h, t) }
}

// Startup declares a startup probe backed by the probe binary.
func Startup(h Handler, t ProbeTiming) ContainerOpt {
	return func(c *v1alpha1.Container) { c.StartupProbe = checkProbe("startup", c.Name, h, t) }
}

// Liveness declares a liveness probe backed by the probe binary.
func Liveness(h Handler, t ProbeTiming) ContainerOpt {
	return func(c *v1alpha1.Container) { c.LivenessProbe = checkProbe("liveness", c.Name, h, t) }
}

// NotifierExec declares an exec notifier backed by the probe.
func NotifierExec(name string, h Handler) ContainerOpt {
	return func(c *v1alpha1.Container) {
		c.Notifiers = append(c.Notifiers, v1alpha1.Notifier{Name: name, Action: v1alpha1.NotifierAction{Exec: execHandler("notifier", c.Name, name, h)}})
	}
}

// NotifierSignal declares a signal notifier.
func NotifierSignal(name, signal string) ContainerOpt {
	return func(c *v1alpha1.Container) {
		c.Notifiers = append(c.Notifiers, v1alpha1.Notifier{Name: name, Action: v1alpha1.NotifierAction{Signal: signal}})
	}
}

// DeferOpt changes a defer container.
type DeferOpt func(*v1alpha1.DeferContainer)

// DeferPhase sets the defer's phase.
func DeferPhase(p v1alpha1.DeferPhase) DeferOpt {
	return func(d *v1alpha1.DeferContainer) { d.Phase = p }
}

// DeferTimeout sets the defer's timeoutSeconds.
func DeferTimeout(s int64) DeferOpt {
	return func(d *v1alpha1.DeferContainer) { d.TimeoutSeconds = &s }
}

// DeferOnFailure sets the defer's onFailure.
func DeferOnFailure(p v1alpha1.DeferFailurePolicy) DeferOpt {
	return func(d *v1alpha1.DeferContainer) { d.OnFailure = p }
}

// DeferRestart sets the defer's restartPolicy.
func DeferRestart(p v1alpha1.RestartPolicy) DeferOpt {
	return func(d *v1alpha1.DeferContainer) { d.RestartPolicy = p }
}

// DeferMount mounts a declared volume into the defer container.
func DeferMount(volume, path string, readOnly bool) DeferOpt {
	return func(d *v1alpha1.DeferContainer) {
		d.VolumeMounts = append(d.VolumeMounts, v1alpha1.VolumeMount{Name: volume, MountPath: path, ReadOnly: readOnly})
	}
}

// DeferCommand replaces the defer's command (the probe's) with argv, e.g. a program that does
// not exist in the image, for a defer that cannot start.
func DeferCommand(argv ...string) DeferOpt {
	return func(d *v1alpha1.DeferContainer) { d.Command, d.Args = argv, nil }
}

// PodBuilder assembles a test pod. Build adds the image, the probe volume and the run ID.
type PodBuilder struct {
	pod    v1alpha1.Pod
	inits  []containerSpec
	mains  []containerSpec
	defers []deferSpec
	mutate []func(*v1alpha1.Pod)
	// envMutate are changes that need the harness's BuildEnv (e.g. TestLabels' run ID).
	envMutate []func(*v1alpha1.Pod, BuildEnv)
	// imageUsers are the Users of the test images the pod's containers run from (ImageUser).
	imageUsers []string
}

type containerSpec struct {
	name string
	w    Workload
	opts []ContainerOpt
}

type deferSpec struct {
	name string
	w    Workload
	opts []DeferOpt
}

// NewPod starts a pod description; the name is replaced by the harness's run-ID name at Build.
func NewPod() *PodBuilder { return &PodBuilder{} }

// Init adds a regular init container.
func (b *PodBuilder) Init(name string, w Workload, opts ...ContainerOpt) *PodBuilder {
	b.inits = append(b.inits, containerSpec{name, w, opts})
	return b
}

// Sidecar adds an init container with restartPolicy Always.
func (b *PodBuilder) Sidecar(name string, w Workload, opts ...ContainerOpt) *PodBuilder {
	return b.Init(name, w, append([]ContainerOpt{WithRestartPolicy(v1alpha1.RestartPolicyAlways)}, opts...)...)
}

// Main adds a main container.
func (b *PodBuilder) Main(name string, w Workload, opts ...ContainerOpt) *PodBuilder {
	b.mains = append(b.mains, containerSpec{name, w, opts})
	return b
}

// Defer adds a defer container.
func (b *PodBuilder) Defer(name string, w Workload, opts ...DeferOpt) *PodBuilder {
	b.defers = append(b.defers, deferSpec{name, w, opts})
	return b
}

// ExitPolicy sets spec.exitPolicy.
func (b *PodBuilder) ExitPolicy(p v1alpha1.ExitPolicy) *PodBuilder {
	b.pod.Spec.ExitPolicy = p
	return b
}

// RestartPolicy sets spec.restartPolicy.
func (b *PodBuilder) RestartPolicy(p v1alpha1.RestartPolicy) *PodBuilder {
	b.pod.Spec.RestartPolicy = p
	return b
}

// Grace sets terminationGracePeriodSeconds.
func (b *PodBuilder) Grace(s int64) *PodBuilder {
	b.pod.Spec.TerminationGracePeriodSeconds = &s
	return b
}

// Deadline sets activeDeadlineSeconds.
func (b *PodBuilder) Deadline(s int64) *PodBuilder { b.pod.Spec.ActiveDeadlineSeconds = &s; return b }

// Backoff sets spec.restartBackoff.
func (b *PodBuilder) Backoff(initial, factor, maxSeconds, resetAfter float64) *PodBuilder {
	b.pod.Spec.RestartBackoff = &v1alpha1.Backoff{InitialSeconds: &initial, Factor: &factor, MaxSeconds: &maxSeconds, ResetAfterSeconds: &resetAfter}
	return b
}

// Labels sets metadata.labels.
func (b *PodBuilder) Labels(l map[string]string) *PodBuilder { b.pod.Metadata.Labels = l; return b }

// Mutate registers a change applied at the end of Build (e.g. to make a manifest invalid).
func (b *PodBuilder) Mutate(f func(*v1alpha1.Pod)) *PodBuilder {
	b.mutate = append(b.mutate, f)
	return b
}

// BuildEnv is what Build needs from the harness.
type BuildEnv struct {
	Name     string // the pod's run-ID name
	Image    string // the probe image reference
	ProbeDir string // host directory mounted at ProbeMount
	RunID    string
	// UserImages are the test images with a User (PodBuilder.ImageUser), by User.
	UserImages map[string]string
}

// Build renders the pod. Containers that mount nothing else get the probe volume, the image,
// PODSPEC_PROBE_NAME and the run ID.
func (b *PodBuilder) Build(env BuildEnv) *v1alpha1.Pod {
	p := b.pod
	p.APIVersion = v1alpha1.APIVersion
	p.Kind = v1alpha1.KindPod
	p.Metadata.Name = env.Name
	p.Spec.Volumes = append([]v1alpha1.Volume{{Name: probeVolume, HostPath: &v1alpha1.HostPathVolumeSource{Path: env.ProbeDir}}}, p.Spec.Volumes...)
	mount := v1alpha1.VolumeMount{Name: probeVolume, MountPath: ProbeMount}
	baseEnv := func(name string) []v1alpha1.EnvVar {
		return []v1alpha1.EnvVar{{Name: "PODSPEC_PROBE_NAME", Value: name}, {Name: EnvRunID, Value: env.RunID}}
	}
	mk := func(s containerSpec) v1alpha1.Container {
		c := v1alpha1.Container{Name: s.name, Image: env.Image, Command: s.w.command(s.name), Env: baseEnv(s.name), VolumeMounts: []v1alpha1.VolumeMount{mount}}
		for _, o := range s.opts {
			o(&c)
		}
		return c
	}
	p.Spec.InitContainers, p.Spec.Containers, p.Spec.DeferContainers = nil, nil, nil
	for _, s := range b.inits {
		p.Spec.InitContainers = append(p.Spec.InitContainers, mk(s))
	}
	for _, s := range b.mains {
		p.Spec.Containers = append(p.Spec.Containers, mk(s))
	}
	for _, s := range b.defers {
		d := v1alpha1.DeferContainer{Name: s.name, Image: env.Image, Command: s.w.command(s.name), Env: baseEnv(s.name), VolumeMounts: []v1alpha1.VolumeMount{mount}}
		for _, o := range s.opts {
			o(&d)
		}
		p.Spec.DeferContainers = append(p.Spec.DeferContainers, d)
	}
	for _, f := range b.envMutate {
		f(&p, env)
	}
	for _, f := range b.mutate {
		f(&p)
	}
	return &p
}

// String summarises the pod's containers for messages.
func (b *PodBuilder) String() string {
	return fmt.Sprintf("pod with %d init, %d main, %d defer containers", len(b.inits), len(b.mains), len(b.defers))
}

// EmptyDir declares an emptyDir volume (tmpfs when memory is true).
func (b *PodBuilder) EmptyDir(name string, memory bool) *PodBuilder {
	v := v1alpha1.Volume{Name: name, EmptyDir: &v1alpha1.EmptyDirVolumeSource{}}
	if memory {
		v.EmptyDir.Medium = "Memory"
	}
	b.pod.Spec.Volumes = append(b.pod.Spec.Volumes, v)
	return b
}

// EmptyDirLimit declares a disk-backed emptyDir volume with a sizeLimit (a quantity, "1Mi").
func (b *PodBuilder) EmptyDirLimit(name, limit string) *PodBuilder {
	q := v1alpha1.Quantity(limit)
	b.pod.Spec.Volumes = append(b.pod.Spec.Volumes, v1alpha1.Volume{Name: name, EmptyDir: &v1alpha1.EmptyDirVolumeSource{SizeLimit: &q}})
	return b
}

// HostPath declares a hostPath volume of the host directory path.
func (b *PodBuilder) HostPath(name, path string) *PodBuilder {
	b.pod.Spec.Volumes = append(b.pod.Spec.Volumes, v1alpha1.Volume{Name: name, HostPath: &v1alpha1.HostPathVolumeSource{Path: path}})
	return b
}

// WithMount mounts a declared volume into the container.
func WithMount(volume, path string, readOnly bool) ContainerOpt {
	return func(c *v1alpha1.Container) {
		c.VolumeMounts = append(c.VolumeMounts, v1alpha1.VolumeMount{Name: volume, MountPath: path, ReadOnly: readOnly})
	}
}

// Report makes a hook or notifier handler report what it sees (environment, namespaces, mounts).
func (h Handler) Report() Handler {
	h.args = append(append([]string(nil), h.args...), probe.ReportFlag)
	return h
}

// Descendants makes a hook or notifier handler start a chain of n descendant processes (a
// child in a session of its own, its child, ...) that report their start and, after the
// handler's sleep, their end, as handler NAME.1, NAME.2, ... (NTF-008: the whole process tree
// of a timed-out action is killed).
func (h Handler) Descendants(n int) Handler {
	h.args = append(append([]string(nil), h.args...), "-descendants", strconv.Itoa(n))
	return h
}

// HoldsLock makes a hook or notifier handler hold an exclusive flock on file in the probe
// directory from its start until its process exits; Pod.Gone tells when the lock is free again,
// that is when the process has exited, not merely reported its end.
func (h Handler) HoldsLock(file string) Handler {
	h.args = append(append([]string(nil), h.args...), "-lock", ProbeMount+"/"+file)
	return h
}

// Stat adds what lstat says of path (mode, owner, modification time) to the workload's report.
func (w Workload) Stat(path string) Workload { return w.with("-stat", path) }

// List adds a directory listing to the workload's report.
func (w Workload) List(dir string) Workload { return w.with("-list", dir) }

// WithLimits sets the container's resource limits (cpu, memory, pids; "" leaves one unset).
func WithLimits(cpu, memory, pids string) ContainerOpt {
	return func(c *v1alpha1.Container) {
		l := v1alpha1.ResourceList{}
		for name, v := range map[v1alpha1.ResourceName]string{v1alpha1.ResourceCPU: cpu, v1alpha1.ResourceMemory: memory, v1alpha1.ResourcePIDs: pids} {
			if v != "" {
				l[name] = v1alpha1.Quantity(v)
			}
		}
		c.Resources = &v1alpha1.ResourceRequirements{Limits: l}
	}
}

// ArgsOnly leaves the image's Entrypoint (the probe) in place and passes the probe's arguments as
// the container's args instead of a command.
func ArgsOnly() ContainerOpt {
	return func(c *v1alpha1.Container) {
		if len(c.Command) > 0 && c.Command[0] == ProbePath {
			c.Args = c.Command[1:]
			c.Command = nil
		}
	}
}

// PreStopSleep declares a preStop sleep hook.
func PreStopSleep(seconds int64) ContainerOpt {
	return func(c *v1alpha1.Container) {
		if c.Lifecycle == nil {
			c.Lifecycle = &v1alpha1.Lifecycle{}
		}
		c.Lifecycle.PreStop = &v1alpha1.LifecycleHandler{Sleep: &v1alpha1.SleepAction{Seconds: seconds}}
	}
}

// Eat makes the workload allocate and touch bytes of memory after d (to be OOM-killed).
func (w Workload) Eat(after time.Duration, bytes int64) Workload {
	return w.with("-eat-after", after.String(), "-eat-bytes", strconv.FormatInt(bytes, 10))
}

// EatInChild makes the workload use its Eat memory in a child process and exit 1 when that child
// fails (is OOM-killed): the OOM killer kills a process of the instance other than its main one.
func (w Workload) EatInChild() Workload { return w.with("-eat-in-child") }

// CheckSlow is a probe command that runs for d, then exits with code.
func CheckSlow(d time.Duration, code int) Handler {
	return Handler{args: []string{"-sleep", d.String(), "-exit", strconv.Itoa(code)}}
}
