package framework

import (
	"fmt"
	"path"
	"strings"

	"podspec.dev/podspec/conformance/probe"
)

// HostMounts reads the harness's own mount table. The harness runs in the host's mount namespace
// (it drives the runtime there), so a filesystem it sees mounted is a host filesystem.
func HostMounts() ([]probe.Mount, error) {
	mounts, err := probe.ReadMounts()
	if err != nil {
		return nil, fmt.Errorf("read the host's mounts: %w", err)
	}
	return mounts, nil
}

// namespacedFS are filesystem types whose mountinfo root is relative to a namespace of the
// reader (cgroup namespaces), so the root a container reports cannot be mapped to a host path;
// what they show is the container's own cgroup, which the resource requirements give it.
var namespacedFS = map[string]bool{"cgroup": true, "cgroup2": true}

// HostPathOf maps a mount a container reports to the host path that holds the same object: a
// host mount of the same device whose root contains the container mount's root, joined with the
// rest of that root. ok is false when the harness sees no such host mount (a filesystem made for
// the container alone: its proc, its tmpfs, a device the harness cannot see) or when the
// filesystem's roots are namespace-relative.
func HostPathOf(m probe.Mount, host []probe.Mount) (hostPath string, ok bool) {
	if namespacedFS[m.FSType] || m.Device == "" || m.Root == "" {
		return "", false
	}
	best := -1
	for i, h := range host {
		if h.Device != m.Device || !pathWithin(m.Root, h.Root) {
			continue
		}
		if best < 0 || len(h.Root) > len(host[best].Root) {
			best = i
		}
	}
	if best < 0 {
		return "", false
	}
	h := host[best]
	rest := strings.TrimPrefix(m.Root, h.Root)
	return path.Join(h.Path, rest), true
}

// pathWithin reports whether p is dir or below it (slash-separated, clean paths).
func pathWithin(p, dir string) bool {
	return dir == "/" || p == dir || strings.HasPrefix(p, dir+"/")
}
