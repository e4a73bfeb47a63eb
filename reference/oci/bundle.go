package oci

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"github.com/opencontainers/runtime-tools/generate"
	"golang.org/x/sys/unix"

	"podspec.dev/podspec/internal/atomicfile"
)

// Namespace types accepted in ContainerConfig.JoinNamespaces.
const (
	NamespaceNetwork = string(specs.NetworkNamespace)
	NamespaceIPC     = string(specs.IPCNamespace)
	NamespaceUTS     = string(specs.UTSNamespace)
	NamespacePID     = string(specs.PIDNamespace)
)

// DefaultPath is the PATH given to a container whose Env has none.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// DefaultNofile is the RLIMIT_NOFILE (soft and hard) of every container, as `runc spec` sets
// it. It is lowered to the caller's own hard limit when that is smaller.
const DefaultNofile = 1024

// SpecVersion is the ociVersion written into every config.json.
const SpecVersion = "1.0.2"

// CPUPeriod is the CFS period (microseconds) used to turn a CPU limit into a quota.
const CPUPeriod = 100000

// ContainerConfig is what WriteBundle needs to describe one container instance. Fields left
// zero take the defaults documented on each field; of the security settings only the user,
// the capabilities (within what SEC-002 bounds) and a read-only root filesystem are.
type ContainerConfig struct {
	// Rootfs is the container's root filesystem directory (absolute, or relative to the
	// bundle directory). Required.
	Rootfs string
	// RootfsReadonly mounts the root filesystem read-only. Default false (every instance gets
	// a fresh, writable root filesystem).
	RootfsReadonly bool
	// Args is the process's command and arguments. Required.
	Args []string
	// Env is the process environment (KEY=VALUE). When no PATH is given, DefaultPath is added.
	// Unlike runc spec, TERM is not set (there is no terminal).
	Env []string
	// Cwd is the working directory; default "/".
	Cwd string
	// UID, GID and AdditionalGids are the process's user; default root (0:0).
	UID, GID       uint32
	AdditionalGids []uint32
	// CapDrop and CapAdd change the process's capabilities from DefaultCapabilities: those
	// CapDrop names go ("ALL": every one), then those CapAdd names come (SEC-024). Names have
	// the CAP_ prefix. Default: none dropped or added.
	CapDrop, CapAdd []string
	// Hostname is set in a new UTS namespace only (the infra container). It is an error to
	// set it while joining a UTS namespace: runc would rename the whole pod.
	Hostname string
	// JoinNamespaces maps namespace types (NamespaceNetwork, NamespaceIPC, NamespaceUTS,
	// NamespacePID) to the path of a namespace to join (/proc/PID/ns/net or a pinned file).
	// Every other namespace of the default set (pid, network, ipc, uts, mount) is new; mount
	// is always new.
	JoinNamespaces map[string]string
	// CgroupsPath is the container's cgroup, e.g. /podspec/<pod-uid>/<instance-id> (one
	// parent per pod). Default: the runtime's choice (runc: /<container-id>).
	CgroupsPath string
	// Resources are the container's limits; zero values mean "no limit".
	Resources Resources
	// Mounts are bind mounts (volumes) added after the default mounts.
	Mounts []Mount
	// RecursiveReadOnly is the option added to every read-only mount so that its submounts are
	// read-only too (Features.RecursiveReadOnlyOption: "rro", or "" where "ro" already is).
	RecursiveReadOnly string
	// OOMScoreAdj is the process's oom_score_adj; it must not be negative (lowering it needs
	// CAP_SYS_RESOURCE, which root lacks on some hosts). Default 0 (not set: inherited).
	OOMScoreAdj int
	// Annotations are copied into config.json.
	Annotations map[string]string
	// CreateRuntime are createRuntime hooks: the runtime runs them, in the runtime's namespace,
	// once the container exists and before its process runs its program (OCI runtime spec,
	// "Lifecycle").
	CreateRuntime []specs.Hook
}

// Resources are per-container cgroup limits.
type Resources struct {
	// CPURequestMilli sets cpu.shares = milli*1024/1000 (minimum 2). 0: not set.
	CPURequestMilli int64
	// CPULimitMilli sets the CFS quota = milli*CPUPeriod/1000 per CPUPeriod (minimum 1000 µs).
	// 0: no quota.
	CPULimitMilli int64
	// MemoryLimitBytes sets the memory limit (the kernel rounds it down to a page). Swap is
	// left to the runtime's default. 0: no limit.
	MemoryLimitBytes int64
	// PidsLimit caps the number of processes. 0: no limit.
	PidsLimit int64
}

// Mount is a bind mount of a host path into the container.
type Mount struct {
	// Source is the host path (absolute).
	Source string
	// Destination is the absolute path inside the container.
	Destination string
	// ReadOnly mounts it read-only.
	ReadOnly bool
}

// DefaultCapabilities are the capabilities of a container process: Docker's default set, the
// 14 that SEC-002 allows, in the bounding set always and, for a process that runs as root, in
// its effective and permitted sets too (SEC-011: programs that start as root change owners and
// drop to their own user).
var DefaultCapabilities = []string{
	"CAP_AUDIT_WRITE", "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
	"CAP_MKNOD", "CAP_NET_BIND_SERVICE", "CAP_NET_RAW", "CAP_SETFCAP", "CAP_SETGID", "CAP_SETPCAP",
	"CAP_SETUID", "CAP_SYS_CHROOT",
}

// Capabilities returns DefaultCapabilities without those drop names (all of them when drop
// holds "ALL") and then with those add names, in DefaultCapabilities' order followed by added
// ones outside it, each once.
func Capabilities(drop, add []string) []string {
	var caps []string
	for _, c := range DefaultCapabilities {
		if slices.Contains(add, c) || !(slices.Contains(drop, "ALL") || slices.Contains(drop, c)) {
			caps = append(caps, c)
		}
	}
	for _, c := range add {
		if !slices.Contains(caps, c) {
			caps = append(caps, c)
		}
	}
	return caps
}

// runc spec's defaults, kept identical so containers get what `runc spec` gives.
var (
	defaultMaskedPaths = []string{
		"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
		"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware", "/proc/scsi",
	}
	defaultReadonlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}
)

// Spec builds the OCI runtime configuration of one container with runtime-tools' generate
// package. Defaults, all fixed:
//
//   - mounts: /proc, /dev (tmpfs), /dev/pts, /dev/shm, /dev/mqueue, /sys (ro) and
//     /sys/fs/cgroup (cgroup, ro), as `runc spec`; then c.Mounts as bind mounts
//     (rbind, rprivate, plus ro and c.RecursiveReadOnly when ReadOnly);
//   - process: terminal off, noNewPrivileges on, DefaultCapabilities (Docker's 14) less
//     CapDrop plus CapAdd in the bounding set and, when the process runs as root (UID 0), in
//     the effective and permitted sets, which a process of another user starts without, as
//     after an execve (Docker does the same); no ambient or inheritable capabilities; RLIMIT_NOFILE DefaultNofile (never
//     above the caller's hard limit), no oomScoreAdj unless positive;
//   - linux: masked and read-only paths as `runc spec`; the seccomp profile of
//     defaultSeccomp (moby's default profile, SeccompSource, with ENOSYS for what it does not
//     name); devices cgroup deny all (the runtime adds its standard /dev/null, /dev/zero, ...
//     allowances);
//     namespaces pid, network, ipc, uts, mount — new unless joined via JoinNamespaces;
//   - hostname only in a new UTS namespace;
//   - hooks: only the given createRuntime hooks.
func Spec(c ContainerConfig) (*specs.Spec, error) {
	if c.Rootfs == "" {
		return nil, fmt.Errorf("container config: rootfs is required")
	}
	if len(c.Args) == 0 {
		return nil, fmt.Errorf("container config: args are required")
	}
	if c.OOMScoreAdj < 0 {
		return nil, fmt.Errorf("container config: oomScoreAdj %d is negative; this runtime never lowers the OOM score", c.OOMScoreAdj)
	}
	g, err := generate.New("linux")
	if err != nil {
		return nil, fmt.Errorf("container config: %w", err)
	}
	g.HostSpecific = false
	// The oldest runtime-spec version with every field set here; runc 1.1 and crun 1.8 accept
	// it (crun 1.8 rejects "1.3.0", the version of the Go types).
	g.Config.Version = SpecVersion
	g.SetRootPath(c.Rootfs)
	g.SetRootReadonly(c.RootfsReadonly)
	for _, step := range []func(*generate.Generator, ContainerConfig) error{
		specProcess, specMounts, specNamespaces, specResources,
	} {
		if err := step(&g, c); err != nil {
			return nil, fmt.Errorf("container config: %w", err)
		}
	}
	specAnnotations(&g, c.Annotations)
	if len(c.CreateRuntime) > 0 {
		g.Config.Hooks = &specs.Hooks{CreateRuntime: c.CreateRuntime}
	}
	return g.Config, nil
}

// specProcess sets the process: args, environment, working directory, user, capabilities,
// the seccomp profile that depends on them, rlimits and OOM score.
func specProcess(g *generate.Generator, c ContainerConfig) error {
	g.SetProcessArgs(c.Args)
	g.SetProcessTerminal(false)
	g.SetProcessNoNewPrivileges(true)
	g.ClearProcessEnv()
	g.Config.Process.Env = processEnv(c.Env)
	cwd := c.Cwd
	if cwd == "" {
		cwd = "/"
	}
	if !filepath.IsAbs(cwd) {
		return fmt.Errorf("working directory %q is not absolute", cwd)
	}
	g.SetProcessCwd(cwd)
	g.SetProcessUID(c.UID)
	g.SetProcessGID(c.GID)
	g.ClearProcessAdditionalGids()
	for _, gid := range c.AdditionalGids {
		g.AddProcessAdditionalGid(gid)
	}
	specCapabilities(g, c)
	// The seccomp profile depends on the bounding set (moby's rules for CAP_SYS_ADMIN,
	// CAP_SYS_CHROOT, ...), so it is made once that is final.
	seccomp, err := seccompFor(g.Config)
	if err != nil {
		return err
	}
	g.Config.Linux.Seccomp = seccomp

	// Rlimits: never above what this process may have (no CAP_SYS_RESOURCE on some hosts).
	nofile := uint64(DefaultNofile)
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err == nil && rl.Max < nofile {
		nofile = rl.Max
	}
	g.ClearProcessRlimits()
	g.AddProcessRlimits("RLIMIT_NOFILE", nofile, nofile)
	if c.OOMScoreAdj > 0 {
		g.SetProcessOOMScoreAdj(c.OOMScoreAdj)
	}
	return nil
}

// processEnv is the process's environment: env, after PATH=DefaultPath unless env sets PATH.
func processEnv(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			return append([]string(nil), env...)
		}
	}
	return append([]string{"PATH=" + DefaultPath}, env...)
}

// specCapabilities sets the process's capabilities: the bounding set, and for root the
// effective and permitted sets.
func specCapabilities(g *generate.Generator, c ContainerConfig) {
	caps := Capabilities(c.CapDrop, c.CapAdd)
	g.Config.Process.Capabilities = &specs.LinuxCapabilities{Bounding: slices.Clone(caps)}
	if c.UID == 0 {
		g.Config.Process.Capabilities.Effective = slices.Clone(caps)
		g.Config.Process.Capabilities.Permitted = slices.Clone(caps)
	}
}

// specMounts adds the read-only cgroup mount and c.Mounts as bind mounts to the defaults, and
// masks and makes read-only the default paths.
func specMounts(g *generate.Generator, c ContainerConfig) error {
	g.AddMount(specs.Mount{Destination: "/sys/fs/cgroup", Type: "cgroup", Source: "cgroup",
		Options: []string{"nosuid", "noexec", "nodev", "relatime", "ro"}})
	for _, m := range c.Mounts {
		if !filepath.IsAbs(m.Source) || !filepath.IsAbs(m.Destination) {
			return fmt.Errorf("mount %s -> %s: paths must be absolute", m.Source, m.Destination)
		}
		opts := []string{"rbind", "rprivate"}
		if m.ReadOnly {
			opts = append(opts, "ro")
			if c.RecursiveReadOnly != "" {
				opts = append(opts, c.RecursiveReadOnly)
			}
		}
		g.AddMount(specs.Mount{Destination: filepath.Clean(m.Destination), Type: "bind", Source: filepath.Clean(m.Source), Options: opts})
	}

	for _, p := range defaultMaskedPaths {
		g.AddLinuxMaskedPaths(p)
	}
	for _, p := range defaultReadonlyPaths {
		g.AddLinuxReadonlyPaths(p)
	}
	return nil
}

// specNamespaces sets the pid, network, ipc, uts and mount namespaces, new unless joined
// (c.JoinNamespaces), and the hostname, only in a new UTS namespace.
func specNamespaces(g *generate.Generator, c ContainerConfig) error {
	g.ClearLinuxNamespaces()
	for _, ns := range []string{NamespacePID, NamespaceNetwork, NamespaceIPC, NamespaceUTS, "mount"} {
		path := c.JoinNamespaces[ns]
		if err := g.AddOrReplaceLinuxNamespace(ns, path); err != nil {
			return fmt.Errorf("namespace %s: %w", ns, err)
		}
	}
	for ns := range c.JoinNamespaces {
		switch ns {
		case NamespacePID, NamespaceNetwork, NamespaceIPC, NamespaceUTS:
		default:
			return fmt.Errorf("joining a %q namespace is not supported", ns)
		}
	}
	g.RemoveHostname()
	if c.Hostname != "" {
		if c.JoinNamespaces[NamespaceUTS] != "" {
			return fmt.Errorf("hostname %q set while joining a UTS namespace (it would rename the whole pod)", c.Hostname)
		}
		g.SetHostname(c.Hostname)
	}
	return nil
}

// specResources sets the cgroups path and the CPU, memory and pids limits of c.Resources.
func specResources(g *generate.Generator, c ContainerConfig) error {
	if c.CgroupsPath != "" {
		if !filepath.IsAbs(c.CgroupsPath) || filepath.Clean(c.CgroupsPath) != c.CgroupsPath {
			return fmt.Errorf("cgroups path %q must be absolute and clean", c.CgroupsPath)
		}
		g.SetLinuxCgroupsPath(c.CgroupsPath)
	}
	res := c.Resources
	if res.CPURequestMilli < 0 || res.CPULimitMilli < 0 || res.MemoryLimitBytes < 0 || res.PidsLimit < 0 {
		return fmt.Errorf("negative resource value in %+v", res)
	}
	if res.CPURequestMilli > 0 {
		g.SetLinuxResourcesCPUShares(CPUShares(res.CPURequestMilli))
	}
	if res.CPULimitMilli > 0 {
		g.SetLinuxResourcesCPUPeriod(CPUPeriod)
		g.SetLinuxResourcesCPUQuota(CPUQuota(res.CPULimitMilli))
	}
	if res.MemoryLimitBytes > 0 {
		g.SetLinuxResourcesMemoryLimit(res.MemoryLimitBytes)
	}
	if res.PidsLimit > 0 {
		g.SetLinuxResourcesPidsLimit(res.PidsLimit)
	}
	return nil
}

// specAnnotations adds the annotations, in the order of their keys.
func specAnnotations(g *generate.Generator, annotations map[string]string) {
	keys := make([]string, 0, len(annotations))
	for k := range annotations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g.AddAnnotation(k, annotations[k])
	}
}

// CPUShares converts a CPU request in millicores to cgroup v1 cpu.shares (1000m = 1024,
// minimum 2, as Kubernetes does).
func CPUShares(milli int64) uint64 {
	s := milli * 1024 / 1000
	if s < 2 {
		s = 2
	}
	return uint64(s)
}

// CPUQuota converts a CPU limit in millicores to a CFS quota per CPUPeriod (minimum 1000 µs).
func CPUQuota(milli int64) int64 {
	q := milli * CPUPeriod / 1000
	if q < 1000 {
		q = 1000
	}
	return q
}

// WriteBundle writes dir/config.json for c (see Spec for every default). dir is created with
// mode 0700 when missing. The root filesystem is not touched.
//
// The file is renamed into place complete, but not fsynced: the runtime reads it at once, in
// the same boot, and a bundle is worth nothing after a host crash (its container is gone), so
// durability would only add a disk flush to every container start.
func WriteBundle(dir string, c ContainerConfig) error {
	spec, err := Spec(c)
	if err != nil {
		return fmt.Errorf("write bundle %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write bundle %s: %w", dir, err)
	}
	// One compact encoding (generate's Save encodes linux twice and indents the whole): the file
	// is read by the runtime, at once, on every container start.
	b, err := json.Marshal(spec)
	if err != nil {
		return fmt.Errorf("write bundle %s: %w", dir, err)
	}
	err = atomicfile.WriteNoSync(filepath.Join(dir, "config.json"), 0o600, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("write bundle %s: %w", dir, err)
	}
	return nil
}
