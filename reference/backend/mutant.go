package backend

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/mutant"
	"podspec.dev/podspec/reference/oci"
)

// staleRootfs is the root filesystem of the mutant build mutant_stale_rootfs (package
// reference/mutant): one per container, made for its first instance and reused by every
// restart, so that a restarted instance sees what the previous one wrote. It is called only
// from a branch guarded by the mutant switch; a normal build drops it. RemovePod unmounts it
// with everything else under the pod directory.
func (b *Backend) staleRootfs(ctx context.Context, pod *engine.PodInfo, container string, img *ocilayout.Image) (string, error) {
	dir, err := filepath.Abs(filepath.Join(pod.Dir, "podspec-mutant-rootfs", container))
	if err != nil {
		return "", fmt.Errorf("mutant rootfs: %w", err)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return dir, nil // the previous instance's root filesystem, as it left it
	}
	if _, err := b.Images.NewRootfs(ctx, img, dir); err != nil {
		return "", err
	}
	return dir, nil
}

// mutantClearEmptyDir empties the emptyDir volume name (host directory dir) of pod: the mutant
// emptydir_cleared_on_restart does it whenever an instance that mounts it is created.
func mutantClearEmptyDir(pod *engine.PodInfo, name, dir string) {
	for _, v := range pod.Spec.Volumes {
		if v.Name != name || v.EmptyDir == nil {
			continue
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// mutantNamespaces is the namespaces an instance of a mutant build joins instead of the pod's
// (ns): the mutant uts_per_container leaves the UTS namespace out (the instance gets one of its
// own), and the mutant host_network has it join the supervisor's network namespace, the host's.
func mutantNamespaces(ns map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range ns {
		out[k] = v
	}
	if mutant.UTSPerContainer {
		delete(out, oci.NamespaceUTS)
	}
	if mutant.HostNetwork {
		out[oci.NamespaceNetwork] = fmt.Sprintf("/proc/%d/ns/net", os.Getpid())
	}
	return out
}

// mutantDeleteOtherLogs deletes every log file beside logPath but logPath itself: the mutant
// previous_log_deleted keeps only the output of a container's newest instance.
func mutantDeleteOtherLogs(logPath string) {
	dir, keep := filepath.Dir(logPath), filepath.Base(logPath)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.Name() != keep {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// mutantHostResolvConf is the host's /etc/resolv.conf as a read-only bind at the same place, the
// extra host path of the mutant host_resolv_conf (none where the host has no such file).
func mutantHostResolvConf() []oci.Mount {
	if _, err := os.Stat("/etc/resolv.conf"); err != nil {
		return nil
	}
	return []oci.Mount{{Source: "/etc/resolv.conf", Destination: "/etc/resolv.conf", ReadOnly: true}}
}
