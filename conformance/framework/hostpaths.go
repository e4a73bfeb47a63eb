package framework

import (
	"fmt"
	"path"
	"strings"

	"golang.org/x/sys/unix"

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

// defaultDevices are the OCI runtime specification's default devices (config-linux, "Default
// Devices") by MAJOR:MINOR: null, zero, full, random, urandom and tty.
var defaultDevices = map[[2]uint32]bool{{1, 3}: true, {1, 5}: true, {1, 7}: true, {1, 8}: true, {1, 9}: true, {5, 0}: true}

// IsReadOnlyDefaultDevice reports whether the container mount m, mapped to hostPath by
// HostPathOf, is a read-only bind of the host's node of a default device — what crun binds over
// a masked path. SEC-006 does not count it as a host path: it gives the container a device it
// has anyway, and a read-only mount cannot change the host's node (its mode, owner or times).
func IsReadOnlyDefaultDevice(m probe.Mount, hostPath string) bool {
	if !m.ReadOnly {
		return false
	}
	var st unix.Stat_t
	if err := unix.Lstat(hostPath, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return false
	}
	return defaultDevices[[2]uint32{unix.Major(uint64(st.Rdev)), unix.Minor(uint64(st.Rdev))}]
}
