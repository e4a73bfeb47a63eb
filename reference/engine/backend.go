package engine

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"syscall"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/publish"
	"podspec.dev/podspec/reference/reaper"
)

// Backend is what the engine needs from the layers below it: a sandbox per pod and OCI
// container instances inside it. The reference implementation (package reference/backend)
// puts runc, OCI image layouts and infra namespaces behind it.
type Backend interface {
	// SetupSandbox creates the pod's sandbox (shared namespaces, cgroup parent) and returns
	// what TeardownSandbox and CreateInstance need to find it again, persisted in the state.
	SetupSandbox(ctx context.Context, pod *PodInfo) (json.RawMessage, error)
	// TeardownSandbox removes the sandbox; it is idempotent.
	TeardownSandbox(ctx context.Context, pod *PodInfo, sandbox json.RawMessage) error
	// CreateInstance makes a fresh root filesystem and bundle for one container instance and
	// creates the OCI container (not started). It returns the host pid of its init process.
	CreateInstance(ctx context.Context, pod *PodInfo, sandbox json.RawMessage, req *InstanceRequest) (pid int, err error)
	// StartInstance starts a created instance.
	StartInstance(ctx context.Context, id string) error
	// Signal sends sig to the instance's init process.
	Signal(ctx context.Context, id string, sig syscall.Signal) error
	// Exec runs argv inside the running instance, bounded by ctx, and returns its exit code.
	// begun, when not nil, is called once the process has begun in the instance (a stop that
	// kills the instance reaches it from then on), at most once and before Exec returns; never
	// for a process that did not begin (MAIN-005, start.go).
	Exec(ctx context.Context, id string, argv []string, begun func()) (int, error)
	// Dial opens a TCP connection to address (an IP address and port) from inside the pod's
	// network namespace, the one its sandbox records, bounded by ctx.
	Dial(ctx context.Context, pod *PodInfo, sandbox json.RawMessage, address string) (net.Conn, error)
	// OutputWritten returns a channel closed once everything the instance wrote to its
	// standard output and standard error is in its log at logPath (its output ended). Called
	// by a supervisor that adopted the instance, it resumes copying the output into the log.
	OutputWritten(id, logPath string) <-chan struct{}
	// VolumeUsage returns the bytes of disk a pod's emptyDir volume uses (as du counts them).
	VolumeUsage(pod *PodInfo, name string) (int64, error)
	// Publish forwards the pod's published ports into its sandbox until the returned closer is
	// closed; it fails, listening on nothing, when a host address cannot be listened on.
	Publish(ctx context.Context, pod *PodInfo, sandbox json.RawMessage, ports []publish.Port) (io.Closer, error)
	// OOMKills returns the OOM-kill counter of the instance's memory cgroup (0 if unknown).
	OOMKills(id string, pod *PodInfo) uint64
	// DeleteInstance removes the OCI container (killing it if it still runs) and its bundle's
	// root filesystem. It is idempotent.
	DeleteInstance(ctx context.Context, id string, pod *PodInfo) error
	// InstanceRan reports whether a created instance was started: the OCI runtime knows it as
	// running or stopped. known is false when the runtime could not tell (an error).
	InstanceRan(ctx context.Context, id string) (ran, known bool)
	// InRuntimeInit reports whether the host process pid of a created instance is still the OCI
	// runtime's init, its program not started yet. tells is false when the process cannot tell
	// (it ended, or the runtime's sandbox hides the program): InstanceRan decides then.
	InRuntimeInit(ctx context.Context, pid int) (inInit, tells bool)
}

// PodInfo identifies a pod for the backend.
type PodInfo struct {
	Name string
	UID  string
	// Dir is the pod's state directory.
	Dir string
	// Spec is the defaulted pod spec.
	Spec *v1alpha1.PodSpec
	// Images maps container names to the image references resolved when the pod was created.
	Images map[string]string
}

// InstanceRequest describes one container instance to create.
type InstanceRequest struct {
	// ID is the OCI container ID (unique per instance).
	ID string
	// Kind is init, sidecar, main or defer.
	Kind string
	// Container is the container as declared (defer containers converted).
	Container *v1alpha1.Container
	// LogPath receives the instance's stdout and stderr.
	LogPath string
	// ExtraEnv is added to the container's environment (KEY=VALUE).
	ExtraEnv []string
	// Image is the resolved image reference to create the instance from (the one resolved
	// at creation, or when an update changed the image); empty: the backend's own record.
	Image string
}

// Watcher delivers the end of processes: a subreaper parent waits for its children; for any
// other process it can only observe that it ended.
type Watcher interface {
	// Watch returns a channel that receives exactly one reaper.ExitStatus when pid ends.
	Watch(pid int) <-chan reaper.ExitStatus
}
