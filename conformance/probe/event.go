// Package probe is the wire protocol between the podspec-probe workload and the conformance
// harness: the event the probe reports, the client that delivers it over a unix socket (or, when
// the socket is missing, appends it to a file next to where the socket should be), and the
// harness-side server that stamps each event on arrival, so every event in a test carries a time
// from one clock.
//
// The package holds no global state and knows nothing about runtimes or Ginkgo.
package probe

import "time"

// Event types the probe reports.
const (
	// TypeStart: the workload process is running (first thing it does).
	TypeStart = "start"
	// TypeReport: what the workload sees (Report is set).
	TypeReport = "report"
	// TypeSignal: a signal arrived (Signal is set); Action says what the probe does about it.
	TypeSignal = "signal"
	// TypeExit: the process is about to exit with ExitCode (sent and acknowledged before exiting).
	TypeExit = "exit"
	// TypeCrash: the process is about to die from a signal it raises itself (Signal is set).
	TypeCrash = "crash"
	// TypeHandlerStart and TypeHandlerEnd bracket a hook or notifier handler (Role says which).
	TypeHandlerStart = "handler-start"
	TypeHandlerEnd   = "handler-end"
	// TypeEat: the process starts using the memory it was asked to use.
	TypeEat = "eat"
	// TypeCheck: a probe command ran (Result is "success" or "failure").
	TypeCheck = "check"
	// TypeRequest: a server of the workload got a request or connection (Request is set); it is
	// reported before the answer is sent, so it precedes whatever the client does with it.
	TypeRequest = "request"
)

// Roles of the process that reports.
const (
	RoleWorkload = "workload" // the container's own process (init, sidecar, main or defer)
	RoleHook     = "hook"     // a postStart or preStop exec handler
	RoleNotifier = "notifier" // a notifier exec handler
	RoleCheck    = "check"    // a startup, readiness or liveness probe command
)

// Event is one thing the probe saw or did.
type Event struct {
	// Container is the name the probe was given (--name or PODSPEC_PROBE_NAME).
	Container string `json:"container"`
	// Role is one of the Role constants.
	Role string `json:"role"`
	// Type is one of the Type constants.
	Type string `json:"type"`
	// Handler names the hook (postStart, preStop), notifier or probe kind the process acts as.
	Handler string `json:"handler,omitempty"`
	// PID is the process ID as the process sees it (1 for a container's own process).
	PID int `json:"pid"`
	// Instance is the 1-based instance number read from the restart counter file (0 if none).
	Instance int `json:"instance,omitempty"`
	// Seq numbers the events of one process, from 1.
	Seq int `json:"seq"`
	// Signal is the signal name (TypeSignal, TypeCrash).
	Signal string `json:"signal,omitempty"`
	// Action is what the probe does about a signal: "exit", "ignore".
	Action string `json:"action,omitempty"`
	// ExitCode is the code of TypeExit and TypeHandlerEnd.
	ExitCode *int `json:"exitCode,omitempty"`
	// Result is "success" or "failure" for TypeCheck.
	Result string `json:"result,omitempty"`
	// Report is set on TypeReport.
	Report *Report `json:"report,omitempty"`
	// Request is set on TypeRequest.
	Request *Request `json:"request,omitempty"`
	// Core is set on TypeCrash when the workload was asked to allow or to prevent a core dump.
	Core *CoreSetup `json:"core,omitempty"`
	// Received is stamped by the harness when the event arrives; zero for events that were
	// written to the fallback file (their arrival time is unknown).
	Received time.Time `json:"received,omitzero"`
	// Fallback is set by the harness for events read from the fallback file.
	Fallback bool `json:"fallback,omitempty"`
}

// Report is what a workload sees of its environment.
type Report struct {
	Hostname string            `json:"hostname"`
	PID      int               `json:"pid"`
	PPID     int               `json:"ppid"`
	UID      int               `json:"uid"`
	GID      int               `json:"gid"`
	Cwd      string            `json:"cwd"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	Cgroup   CgroupLimits      `json:"cgroup"`
	Mounts   []Mount           `json:"mounts"`
	// MountsError says why Mounts is empty: the mount table could not be read or parsed.
	MountsError string `json:"mountsError,omitempty"`
	// FreshRootfs is true when the marker a previous instance leaves in the root filesystem is
	// absent, i.e. this instance got a fresh root filesystem.
	FreshRootfs bool `json:"freshRootfs"`
	// RootfsWritable says whether the marker could be written.
	RootfsWritable bool `json:"rootfsWritable"`
	// RootfsChecked is set on the report a workload sends as it starts, the only one that looks
	// for the marker and writes it: FreshRootfs and RootfsWritable say nothing on the others.
	RootfsChecked bool `json:"rootfsChecked,omitempty"`
	// Files holds the content of the files the probe was asked to read ("" and a note in
	// FileErrors when unreadable).
	Files      map[string]string `json:"files,omitempty"`
	FileErrors map[string]string `json:"fileErrors,omitempty"`
	// Dirs lists the entries of the directories the probe was asked to list (nil when
	// unreadable).
	Dirs map[string][]string `json:"dirs,omitempty"`
	// Stats holds what lstat says of the paths the probe was asked to stat (absent when lstat
	// failed).
	Stats map[string]FileStat `json:"stats,omitempty"`
	// NoNewPrivs and CapBnd (hex) come from /proc/self/status.
	NoNewPrivs bool   `json:"noNewPrivs"`
	CapBnd     string `json:"capBnd"`
	// Namespaces maps a namespace kind (net, ipc, uts, pid, mnt, cgroup) to its identity, e.g.
	// "net:[4026532281]".
	Namespaces map[string]string `json:"namespaces"`
	// Interfaces lists the network interfaces (/proc/net/dev).
	Interfaces []string `json:"interfaces"`
	// Masked says, for each path checked, how it appears: "null-device" (bound to /dev/null),
	// "empty" (an empty read-only directory), "absent", or "visible" (neither).
	Masked map[string]string `json:"masked"`
	// Absent lists the paths of the runtime's read-only set (/proc/sys, /proc/sysrq-trigger,
	// /proc/irq, /proc/bus) that do not exist in the container (a kernel may lack some).
	Absent []string `json:"absent,omitempty"`
}

// Request is what a workload's HTTP, TCP or gRPC health server got, and what it answered.
type Request struct {
	// Protocol is "http", "https", "tcp" or "grpc".
	Protocol string `json:"protocol"`
	// Local is the address the server listens on (IP:port).
	Local string `json:"local"`
	// Path is an HTTP request's target as sent (path and query).
	Path string `json:"path,omitempty"`
	// Headers holds an HTTP request's headers (canonical names, values joined with ", ").
	Headers map[string]string `json:"headers,omitempty"`
	// Status is the HTTP status answered.
	Status int `json:"status,omitempty"`
	// Service is the service of a gRPC health check; Answer the health status answered
	// (SERVING, NOT_SERVING, or the gRPC error code for a service the server does not know).
	Service string `json:"service,omitempty"`
	Answer  string `json:"answer,omitempty"`
}

// FileStat is what lstat says of a path: its st_mode (type and permission bits), owner and
// modification time (Unix seconds).
type FileStat struct {
	Mode  uint32 `json:"mode"`
	UID   uint32 `json:"uid"`
	GID   uint32 `json:"gid"`
	Mtime int64  `json:"mtime"`
}

// CoreSetup is what a crashing workload did about core dumps just before crashing (STAT-005).
type CoreSetup struct {
	// Dumpable is the process's dumpable flag (PR_GET_DUMPABLE == 1).
	Dumpable bool `json:"dumpable"`
	// Limit is the soft RLIMIT_CORE in bytes (^0 for unlimited).
	Limit uint64 `json:"limit"`
	// Dir is the working directory, where a core_pattern without a directory puts the core.
	Dir string `json:"dir"`
	// Pattern is /proc/sys/kernel/core_pattern as the process read it (host-wide).
	Pattern string `json:"pattern,omitempty"`
	// Errors lists the steps that failed.
	Errors []string `json:"errors,omitempty"`
}

// CgroupLimits are the limits of the cgroup the process is in; -1 means unlimited, 0 unknown.
type CgroupLimits struct {
	// Version is 1 or 2 (0 when /sys/fs/cgroup is not readable).
	Version     int   `json:"version"`
	MemoryBytes int64 `json:"memoryBytes"`
	Pids        int64 `json:"pids"`
	// CPUQuotaMicros per CPUPeriodMicros; quota -1 is unlimited.
	CPUQuotaMicros  int64 `json:"cpuQuotaMicros"`
	CPUPeriodMicros int64 `json:"cpuPeriodMicros"`
}

// Mount is one line of /proc/self/mountinfo.
type Mount struct {
	Path     string `json:"path"`
	FSType   string `json:"fsType"`
	Source   string `json:"source"`
	ReadOnly bool   `json:"readOnly"`
	// Root is the path, inside its filesystem, of the directory or file mounted at Path ("/"
	// for a whole filesystem, the bound path for a bind mount).
	Root string `json:"root,omitempty"`
	// Device is the filesystem's MAJOR:MINOR: with Root it names the mounted object the same
	// way in every mount namespace of the host (SEC-006).
	Device string `json:"device,omitempty"`
}

// Default locations inside a container.
const (
	// DefaultSocket is where the harness mounts its socket.
	DefaultSocket = "/probe/events.sock"
	// FallbackFile is the name of the file, in the socket's directory, events go to when the
	// socket cannot be reached.
	FallbackFile = "events.jsonl"
	// EnvSocket overrides DefaultSocket.
	EnvSocket = "PODSPEC_PROBE_SOCKET"
	// EnvName gives the container name when --name is not passed.
	EnvName = "PODSPEC_PROBE_NAME"
)

// The -flood workload: FloodLine is the length of each numbered line it writes ("%08d xxx…\n"),
// FloodFailed its exit code when a write to its standard output failed.
const (
	FloodLine   = 1024
	FloodFailed = 120
)

// ReportFlag is the argument that makes a workload or handler send a Report of what it sees as it
// starts (the flag "report"): what the harness and the lifecycle model look for in a command.
const ReportFlag = "-report"
