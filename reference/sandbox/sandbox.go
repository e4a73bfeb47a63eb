// Package sandbox creates and tears down a pod's shared namespaces: network (loopback only,
// `lo` up), IPC and UTS (hostname = pod name), which every container of the pod joins, and
// names the pod's cgroup parent.
//
// Design choice: pinned namespace files, not an infra ("pause") container. Create unshares
// the three namespaces in a dedicated, locked OS thread, sets the hostname, brings `lo` up,
// and bind-mounts the thread's /proc/<pid>/task/<tid>/ns/{net,ipc,uts} onto files in the
// sandbox directory; the thread then exits and the bind mounts alone keep the namespaces
// alive. Containers join them through those file paths (runc accepts any nsfs path). Why:
//
//   - nothing can die: an infra process can be killed or OOM-killed, after which no container
//     can be created in the pod (runc fails with "failed to open /proc/<pid>/ns/net"); a bind
//     mount lives until it is unmounted;
//   - a supervisor restart finds the sandbox again from the directory alone (Load), with no
//     process to adopt or reap;
//   - it is cheaper (no runc create/start, no rootfs for the infra) and needs no image;
//   - pod-wide PID namespace sharing is not part of the spec, so no pod PID 1 reaper is needed.
//
// The cost: the pins are mounts in the host mount namespace, so Destroy must unmount them; it
// is idempotent, and Load+Destroy cleans up after a crash. The namespaces themselves disappear
// when the pins are unmounted and the last container in them has exited.
package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/internal/atomicfile"
	"podspec.dev/podspec/reference/oci"
	"podspec.dev/podspec/reference/store"
)

// CgroupRoot is the cgroup under which every pod gets its parent (CgroupRoot/<pod-uid>).
const CgroupRoot = "/podspec"

// stateFile is the sandbox's record in its directory.
const stateFile = "sandbox.json"

// pins maps the OCI namespace type to its pin file name in the sandbox directory, and to the
// unshare flag that creates it.
var pins = []struct {
	nsType string
	file   string
	flag   int
}{
	{oci.NamespaceNetwork, "net", unix.CLONE_NEWNET},
	{oci.NamespaceIPC, "ipc", unix.CLONE_NEWIPC},
	{oci.NamespaceUTS, "uts", unix.CLONE_NEWUTS},
}

// validUID reports whether a pod UID is 1 to 128 letters, digits and '-', starting with a
// letter or digit: safe in a host path and a cgroup name.
func validUID(uid string) bool {
	if len(uid) == 0 || len(uid) > 128 || uid[0] == '-' {
		return false
	}
	for _, c := range []byte(uid) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// ErrNotFound is returned (wrapped) by Load when the directory holds no sandbox.
var ErrNotFound = errors.New("sandbox not found")

// Sandbox is a pod's set of pinned namespaces.
type Sandbox struct {
	// Dir is the sandbox directory holding the pins and sandbox.json.
	Dir string `json:"-"`
	// PodName is the pod's name, also its hostname.
	PodName string `json:"podName"`
	// PodUID is the pod's UID; it names the cgroup parent.
	PodUID string `json:"podUID"`
	// Created is when the sandbox was created.
	Created time.Time `json:"created"`
}

// Create makes the sandbox of a pod in dir (created with mode 0700; it must not hold a
// sandbox already). dir belongs to the sandbox: Destroy removes it with everything in it, so
// give it a dedicated directory such as <pod state dir>/sandbox. podName must be a DNS label and podUID only letters, digits and '-',
// since both end up in host paths and the hostname. rt is not used by this pinned-namespace
// implementation (see the package comment); it is accepted so that callers are unchanged by
// an implementation that runs an infra container. On failure nothing is left behind.
func Create(ctx context.Context, rt *oci.Runtime, dir, podName, podUID string) (*Sandbox, error) {
	_ = rt
	if store.ValidName(podName) != nil {
		return nil, fmt.Errorf("create sandbox: pod name %q is not a DNS label", podName)
	}
	if !validUID(podUID) {
		return nil, fmt.Errorf("create sandbox: pod UID %q has characters other than letters, digits and '-'", podUID)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if _, err := os.Stat(filepath.Join(abs, stateFile)); err == nil {
		return nil, fmt.Errorf("create sandbox: %s already holds a sandbox", abs)
	}
	s := &Sandbox{Dir: abs, PodName: podName, PodUID: podUID, Created: time.Now().UTC()}
	ok := false
	defer func() {
		if !ok {
			_ = s.Destroy(context.WithoutCancel(ctx))
		}
	}()
	for _, p := range pins {
		f, err := os.OpenFile(filepath.Join(abs, p.file), os.O_CREATE|os.O_EXCL|os.O_RDONLY, 0o400)
		if err != nil {
			return nil, fmt.Errorf("create sandbox: pin file: %w", err)
		}
		f.Close()
	}
	if err := onThrowawayThread(s.pinNamespaces); err != nil {
		return nil, fmt.Errorf("create sandbox %s: %w", podName, err)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(abs, stateFile), b, 0o600); err != nil {
		return nil, fmt.Errorf("create sandbox: %w", err)
	}
	ok = true
	return s, nil
}

// onThrowawayThread runs fn on a goroutine locked to an OS thread that is not the process's
// main thread, and never unlocks it: fn changes the thread's namespaces, so the thread must
// exit with the goroutine instead of returning to the scheduler's pool. The main thread is
// avoided because the Go runtime parks (rather than ends) it, and because /proc/self
// describes it: changing its namespaces would change what /proc/self/ns and /proc/self/net
// show for the whole process.
func onThrowawayThread(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() != unix.Getpid() {
			errc <- fn() // exits locked: the thread ends
			return
		}
		// We hold the main thread, so this goroutine runs on another one.
		inner := make(chan error, 1)
		go func() {
			runtime.LockOSThread()
			inner <- fn()
		}()
		errc <- <-inner
		runtime.UnlockOSThread()
	}()
	return <-errc
}

// pinNamespaces runs on a throwaway thread (see onThrowawayThread).
func (s *Sandbox) pinNamespaces() error {
	if unix.Gettid() == unix.Getpid() {
		return errors.New("refusing to change the main thread's namespaces")
	}
	flags := 0
	for _, p := range pins {
		flags |= p.flag
	}
	if err := unix.Unshare(flags); err != nil {
		return fmt.Errorf("unshare network, IPC and UTS namespaces: %w", err)
	}
	if err := unix.Sethostname([]byte(s.PodName)); err != nil {
		return fmt.Errorf("set hostname: %w", err)
	}
	if err := loopbackUp(); err != nil {
		return err
	}
	tid := unix.Gettid()
	for _, p := range pins {
		src := fmt.Sprintf("/proc/%d/task/%d/ns/%s", os.Getpid(), tid, p.file)
		dst := filepath.Join(s.Dir, p.file)
		if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("pin %s namespace on %s: %w", p.nsType, dst, err)
		}
	}
	return nil
}

// loopbackUp sets IFF_UP on `lo` in the calling thread's network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bring lo up: socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("bring lo up: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring lo up: get flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring lo up: set flags: %w", err)
	}
	return nil
}

// Load finds the sandbox in dir again (after a supervisor restart). It fails with ErrNotFound
// when dir holds no sandbox, and with another error when the record exists but a pin is no
// longer mounted (e.g. after a reboot); Destroy still cleans such a sandbox up.
func Load(dir string) (*Sandbox, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("load sandbox: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(abs, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load sandbox %s: %w", abs, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load sandbox %s: %w", abs, err)
	}
	s := &Sandbox{}
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("load sandbox %s: %w", abs, err)
	}
	s.Dir = abs
	for _, p := range pins {
		if !isNsfs(filepath.Join(abs, p.file)) {
			return s, fmt.Errorf("load sandbox %s: %s namespace is no longer pinned", abs, p.nsType)
		}
	}
	return s, nil
}

// isNsfs reports whether path is a mounted namespace file.
func isNsfs(path string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return false
	}
	return st.Type == unix.NSFS_MAGIC
}

// NamespacePaths returns the namespace files containers join, keyed by OCI namespace type
// (oci.NamespaceNetwork, oci.NamespaceIPC, oci.NamespaceUTS): pass it as
// oci.ContainerConfig.JoinNamespaces (and set no Hostname there).
func (s *Sandbox) NamespacePaths() map[string]string {
	m := make(map[string]string, len(pins))
	for _, p := range pins {
		m[p.nsType] = filepath.Join(s.Dir, p.file)
	}
	return m
}

// CgroupParent returns the pod's cgroup parent, CgroupRoot/<pod-uid>; container instances
// go below it (e.g. CgroupParent()+"/"+instanceID).
func (s *Sandbox) CgroupParent() string {
	return CgroupRoot + "/" + s.PodUID
}

// Destroy unmounts the namespace pins, removes the sandbox directory and removes the pod's
// cgroup parent (and any empty cgroups below it) in every hierarchy. Run it after every
// container of the pod has been deleted. It is idempotent: whatever is already gone is
// skipped, so it also finishes an interrupted Destroy or cleans up after a failed Create.
func (s *Sandbox) Destroy(ctx context.Context) error {
	var errs []error
	for _, p := range pins {
		path := filepath.Join(s.Dir, p.file)
		for isNsfs(path) {
			if err := unix.Unmount(path, unix.MNT_DETACH); err != nil {
				if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
					errs = append(errs, fmt.Errorf("unpin %s: %w", path, err))
				}
				break
			}
		}
	}
	if len(errs) == 0 {
		if err := os.RemoveAll(s.Dir); err != nil {
			errs = append(errs, fmt.Errorf("remove sandbox dir: %w", err))
		}
	}
	if validUID(s.PodUID) {
		if err := removeCgroup(ctx, s.CgroupParent()); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("destroy sandbox %s: %w", s.PodName, err)
	}
	return nil
}

// removeCgroup removes a cgroup tree, retrying briefly while killed processes leave it.
func removeCgroup(ctx context.Context, path string) error {
	var err error
	for i := 0; i < 50; i++ {
		if err = oci.RemoveCgroup(path); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return err
}
