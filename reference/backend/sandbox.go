package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/oci"
)

// Sandboxer creates the namespaces a pod's containers share.
type Sandboxer interface {
	// Create makes the sandbox of pod and returns its persisted state and the namespaces to
	// join (oci.Namespace* type → path).
	Create(ctx context.Context, b *Backend, pod *engine.PodInfo) (json.RawMessage, map[string]string, error)
	// Destroy removes the sandbox; it is idempotent.
	Destroy(ctx context.Context, b *Backend, pod *engine.PodInfo, state json.RawMessage) error
}

// namespaceSandboxer pins a new network (loopback only, up), IPC and UTS namespace (hostname =
// pod name) to files in the pod directory, with no infra process: containers join the pinned
// files, and Destroy unmounts them.
type namespaceSandboxer struct{}

var pinned = []struct {
	typ  string
	flag int
	proc string
}{
	{oci.NamespaceNetwork, unix.CLONE_NEWNET, "net"},
	{oci.NamespaceIPC, unix.CLONE_NEWIPC, "ipc"},
	{oci.NamespaceUTS, unix.CLONE_NEWUTS, "uts"},
}

func (namespaceSandboxer) Create(ctx context.Context, b *Backend, pod *engine.PodInfo) (json.RawMessage, map[string]string, error) {
	dir := filepath.Join(pod.Dir, "ns")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	ns := map[string]string{}
	for _, p := range pinned {
		f := filepath.Join(dir, p.proc)
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			return nil, nil, fmt.Errorf("sandbox: %w", err)
		}
		ns[p.typ] = f
	}
	errc := make(chan error, 1)
	// The namespaces are created on a thread of their own that is never returned to the Go
	// scheduler (the goroutine ends with the OS thread still locked, so the thread exits).
	go func() {
		runtime.LockOSThread()
		errc <- pinNamespaces(pod.Name, ns)
	}()
	if err := <-errc; err != nil {
		unpin(ns)
		return nil, nil, fmt.Errorf("sandbox of %s: %w", pod.Name, err)
	}
	b2, _ := json.Marshal(ns)
	return b2, ns, nil
}

func pinNamespaces(hostname string, ns map[string]string) error {
	if err := unix.Unshare(unix.CLONE_NEWNET | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS); err != nil {
		return fmt.Errorf("unshare: %w", err)
	}
	if err := unix.Sethostname([]byte(hostname)); err != nil {
		return fmt.Errorf("set hostname: %w", err)
	}
	if err := loopbackUp(); err != nil {
		return err
	}
	tid := unix.Gettid()
	for _, p := range pinned {
		src := fmt.Sprintf("/proc/self/task/%d/ns/%s", tid, p.proc)
		if err := unix.Mount(src, ns[p.typ], "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("pin %s namespace: %w", p.proc, err)
		}
	}
	return nil
}

// loopbackUp sets the lo interface of the current network namespace up.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}

func unpin(ns map[string]string) error {
	var errs []error
	for _, f := range ns {
		if err := unix.Unmount(f, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("unpin %s: %w", f, err))
		}
		os.Remove(f)
	}
	return errors.Join(errs...)
}

func (namespaceSandboxer) Destroy(ctx context.Context, b *Backend, pod *engine.PodInfo, state json.RawMessage) error {
	var ns map[string]string
	if len(state) > 0 {
		if err := json.Unmarshal(state, &ns); err != nil {
			return fmt.Errorf("sandbox state: %w", err)
		}
	}
	return unpin(ns)
}
