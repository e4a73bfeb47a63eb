package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"podspec.dev/podspec/internal/atomicfile"
	"podspec.dev/podspec/reference/reaper"
)

// Features is what an OCI runtime CLI says it supports, as far as this package depends on
// anything beyond the verbs every runtime with runc's command line has (create, start, run
// --detach, kill, delete, state, list, exec). It is asked of the runtime, never assumed from its
// name: the features document (`BINARY features`) where the runtime has one (runc 1.1 and
// later), its help texts otherwise (crun 1.8 and gVisor's runsc have no features verb).
type Features struct {
	// Binary is the runtime's identity when it was probed (resolved path, inode, size, times):
	// a cached probe is used only while it still matches.
	Binary string `json:"binary"`
	// Version is the first line of `BINARY --version`.
	Version string `json:"version"`
	// Document is true when the runtime answered `features` with a features document.
	Document bool `json:"document"`
	// Hooks are the hook kinds of the features document (nil when there is none).
	Hooks []string `json:"hooks,omitempty"`
	// NoSubreaper: `run --help` lists --no-subreaper (runc and crun do; runsc does not, and
	// rejects it with "flag provided but not defined").
	NoSubreaper bool `json:"noSubreaper"`
	// Update: the runtime has an update verb (`--help` lists it; runsc has none).
	Update bool `json:"update"`
	// SandboxPIDs: `exec --help` lists --internal-pid-file and `kill --help` lists --pid (runsc
	// has both, runc and crun neither). The exec'd process then has a pid of the container's
	// own (--pid-file names the runtime's exec process instead, and gVisor's processes are not
	// host processes at all), so Exec finds and kills a timed-out exec's tree with the runtime's
	// `ps` and `kill --pid`, not through the host's /proc.
	SandboxPIDs bool `json:"sandboxPids"`
	// MountOptions are the mount options of the features document (nil when there is none).
	MountOptions []string `json:"mountOptions,omitempty"`
	// Schema is the probe's version (featuresSchema): a kept probe of another version lacks
	// what was asked since and is probed again.
	Schema int `json:"schema"`
	// HybridProbed: a container creation failed on a host with hybrid cgroups (v1 controllers,
	// cgroup2 mounted at /sys/fs/cgroup/unified) whose cgroup2 hierarchy holds a controller,
	// and MaskHybridControllers was then probed. Hosts without that condition, and runtimes
	// whose creations never failed, are never probed.
	HybridProbed bool `json:"hybridProbed,omitempty"`
	// MaskHybridControllers: the runtime refused to create a probe container, and created it
	// when run in a mount namespace of its own where HybridControllers reads empty; every
	// invocation is then run so. crun 1.8 needs it: it refuses hybrid mode when cgroup2 has any
	// controller, whatever its --cgroup-manager and whether or not the config has a
	// cgroupsPath or resources (see docs/runtime.md).
	MaskHybridControllers bool `json:"maskHybridControllers,omitempty"`
}

// HybridControllers is the file an OCI runtime reads to see whether cgroup2 holds controllers
// on a hybrid-cgroup host.
const HybridControllers = "/sys/fs/cgroup/unified/cgroup.controllers"

// featuresSchema is the version of the probe; raise it when Features gains a field.
const featuresSchema = 2

// features is the in-process cache of probes, by binary identity.
var features sync.Map // identity -> *Features

var probing sync.Mutex

// Features returns what the runtime supports, probing it once per binary identity: in this
// process, and across processes through the file r.FeaturesFile when it is set (written
// atomically; losing it costs one more probe).
func (r *Runtime) Features(ctx context.Context) (*Features, error) {
	if r.features != nil {
		return r.features, nil
	}
	path, err := exec.LookPath(r.binary())
	if err != nil {
		return nil, fmt.Errorf("%w: %q not found: %v", ErrUnavailable, r.binary(), err)
	}
	id := binaryIdentity(path)
	if v, ok := features.Load(id); ok && id != "" {
		return v.(*Features), nil
	}
	probing.Lock() // one probe at a time: its container ids are per process
	defer probing.Unlock()
	if v, ok := features.Load(id); ok && id != "" {
		return v.(*Features), nil
	}
	if f := r.readFeaturesFile(id); f != nil {
		features.Store(id, f)
		return f, nil
	}
	f, err := r.probe(ctx, path)
	if err != nil {
		return nil, err
	}
	f.Binary = id
	if id != "" {
		features.Store(id, f)
		r.writeFeaturesFile(f)
	}
	return f, nil
}

func (r *Runtime) readFeaturesFile(id string) *Features {
	if r.FeaturesFile == "" || id == "" {
		return nil
	}
	b, err := os.ReadFile(r.FeaturesFile)
	if err != nil {
		return nil
	}
	var f Features
	if json.Unmarshal(b, &f) != nil || f.Binary != id || f.Schema != featuresSchema {
		return nil
	}
	return &f
}

func (r *Runtime) writeFeaturesFile(f *Features) {
	if r.FeaturesFile == "" {
		return
	}
	// Only a cache: renamed complete, not synced; losing it costs one more probe.
	_ = atomicfile.WriteNoSync(r.FeaturesFile, 0o600, func(w io.Writer) error { return json.NewEncoder(w).Encode(f) })
}

var (
	updateVerb = regexp.MustCompile(`(?m)^\s+update\b`)
	// pidFlag is a --pid flag of its own in a help text (not --pid-file).
	pidFlag = regexp.MustCompile(`(?m)^\s+--?pid(\s|=|$)`)
)

// probe asks the runtime at path what it supports.
func (r *Runtime) probe(ctx context.Context, path string) (*Features, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	help := func(args ...string) string {
		out, _ := reaper.CombinedOutput(exec.CommandContext(ctx, path, args...))
		return string(out)
	}
	f := &Features{Schema: featuresSchema}
	v, err := r.Version(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %s does not work: %v", ErrUnavailable, path, err)
	}
	f.Version = v
	if out, err := reaper.Output(exec.CommandContext(ctx, path, "features")); err == nil {
		var doc struct { // the fields of the OCI features document that are used here
			OCIVersionMax string   `json:"ociVersionMax"`
			Hooks         []string `json:"hooks"`
			MountOptions  []string `json:"mountOptions"`
		}
		if json.Unmarshal(out, &doc) == nil && doc.OCIVersionMax != "" {
			f.Document, f.Hooks, f.MountOptions = true, doc.Hooks, doc.MountOptions
		}
	}
	f.NoSubreaper = strings.Contains(help("run", "--help"), "-no-subreaper")
	f.Update = updateVerb.MatchString(help("--help"))
	f.SandboxPIDs = strings.Contains(help("exec", "--help"), "-internal-pid-file") &&
		pidFlag.MatchString(help("kill", "--help"))
	return f, nil
}

// RecursiveReadOnlyOption is the mount option that makes a read-only bind mount read-only all
// the way down, submounts included, on this runtime: "rro" (mount_setattr with AT_RECURSIVE,
// Linux 5.12 and later) where the features document lists it (runc 1.1 and later) or where there
// is no document and the runtime runs containers on the host's kernel (crun 1.8 applies it;
// a runtime that does not know the option refuses the configuration); "" for a runtime that runs
// containers on a kernel of its own (SandboxPIDs: gVisor's runsc rejects "rro", and serves a
// bind mount through its gofer as one filesystem, read-only as a whole with "ro"). It fails
// when the features document does not list "rro": such a runtime would leave the submounts of a
// read-only mount writable.
func (f *Features) RecursiveReadOnlyOption() (string, error) {
	switch {
	case f.Document:
		for _, o := range f.MountOptions {
			if o == "rro" {
				return "rro", nil
			}
		}
		return "", fmt.Errorf("%w: %s does not list the recursive read-only mount option \"rro\" (runc 1.1 and later, Linux 5.12 and later have it); a read-only mount would leave its submounts writable", ErrUnsupported, f.Version)
	case f.SandboxPIDs:
		return "", nil
	default:
		return "rro", nil
	}
}

// retryMasked is called after a container creation failed: it reports whether the
// runtime, not yet probed for it, creates containers only with the hybrid controllers masked,
// and then records so (in this process and FeaturesFile), so that the caller retries.
func (r *Runtime) retryMasked(ctx context.Context) bool {
	if r.features != nil || !hybridControllersInUse() {
		return false
	}
	f, err := r.Features(ctx)
	if err != nil || f.HybridProbed {
		return false
	}
	probing.Lock()
	defer probing.Unlock()
	if v, ok := features.Load(f.Binary); ok && v.(*Features).HybridProbed {
		return v.(*Features).MaskHybridControllers // probed meanwhile
	}
	g := *f
	g.HybridProbed, g.MaskHybridControllers = true, r.needsMask(ctx)
	if g.Binary != "" {
		features.Store(g.Binary, &g)
		r.writeFeaturesFile(&g)
	}
	return g.MaskHybridControllers
}

// hybridControllersInUse reports whether this host has hybrid cgroups with a controller on the
// cgroup2 side.
func hybridControllersInUse() bool {
	b, err := os.ReadFile(HybridControllers)
	return err == nil && len(bytes.TrimSpace(b)) > 0
}

// needsMask creates (and deletes) a probe container plainly and, if that fails, with the
// hybrid controllers masked; it reports whether only the masked one was created.
func (r *Runtime) needsMask(ctx context.Context) bool {
	dir, err := os.MkdirTemp("", "podspec-oci-probe-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	// An empty root filesystem with /proc: the program, /proc/self/exe, must exist (crun looks
	// it up at create); it never runs.
	for _, d := range []string{"rootfs/proc", "rootfs/dev"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return false
		}
	}
	spec := specs.Spec{Version: SpecVersion, Root: &specs.Root{Path: "rootfs"},
		Process: &specs.Process{Args: []string{"/proc/self/exe"}, Cwd: "/"},
		Mounts:  []specs.Mount{{Destination: "/proc", Type: "proc", Source: "proc"}},
		Linux:   &specs.Linux{Namespaces: []specs.LinuxNamespace{{Type: specs.MountNamespace}, {Type: specs.PIDNamespace}}}}
	b, err := json.Marshal(spec)
	if err != nil || os.WriteFile(filepath.Join(dir, "config.json"), b, 0o600) != nil {
		return false
	}
	try := func(mask bool) bool {
		probe := &Runtime{Binary: r.Binary, Root: r.Root, features: &Features{MaskHybridControllers: mask}}
		id := fmt.Sprintf("podspec-probe-%d-%t", os.Getpid(), mask)
		_, err := probe.Create(ctx, id, dir, IO{})
		_ = probe.Delete(context.WithoutCancel(ctx), id, true)
		return err == nil
	}
	return !try(false) && try(true)
}

// ErrUnsupported means the OCI runtime lacks what the operation needs (Features).
var ErrUnsupported = errors.New("not supported by the OCI runtime")
