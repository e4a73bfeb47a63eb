package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/moby/sys/mountinfo"
)

// CheckLeaks looks for anything of this run left on the host: pods the runtime still lists,
// processes carrying the run ID in their environment, mounts and cgroups named after the run ID
// or a pod UID, and OCI containers under the configured OCI roots. It returns one error listing
// every leak.
func (f *Framework) CheckLeaks(ctx context.Context) error {
	f.mu.Lock()
	needles := append([]string{f.cfg.RunID + "-"}, f.uids...)
	f.mu.Unlock()
	var leaks []string

	if list, err := f.RT.List(ctx); err != nil {
		leaks = append(leaks, fmt.Sprintf("runtime list failed: %v", err))
	} else {
		for _, e := range list {
			if strings.HasPrefix(e.Name, f.cfg.RunID+"-") {
				leaks = append(leaks, fmt.Sprintf("pod %s (%s) still listed by the runtime", e.Name, e.Phase))
			}
		}
	}
	leaks = append(leaks, leakedProcesses(EnvRunID+"="+f.cfg.RunID)...)
	leaks = append(leaks, leakedMounts(append(needles, f.cfg.WorkDir+"/"))...)
	leaks = append(leaks, leakedCgroups("/sys/fs/cgroup", needles, 6)...)
	for _, root := range f.cfg.OCIRoots {
		leaks = append(leaks, leakedOCIContainers(ctx, f.cfg.OCIRuntime, root, needles)...)
	}
	if len(leaks) > 0 {
		return fmt.Errorf("run %s left things behind:\n  %s", f.cfg.RunID, strings.Join(leaks, "\n  "))
	}
	return nil
}

func containsAny(s string, needles []string) bool {
	for _, n := range needles {
		if n != "" && strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// leakedProcesses lists processes whose environment holds marker.
func leakedProcesses(marker string) []string {
	var out []string
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return []string{fmt.Sprintf("cannot list processes: %v", err)}
	}
	self := fmt.Sprint(os.Getpid())
	for _, e := range entries {
		if e.Name() == self || e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue // gone, or a kernel thread
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if string(kv) == marker {
				cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
				out = append(out, fmt.Sprintf("process %s still running: %s", e.Name(), strings.ReplaceAll(strings.TrimRight(string(cmd), "\x00"), "\x00", " ")))
				break
			}
		}
	}
	return out
}

// leakedMounts lists host mounts whose mount point, source or root (the directory a bind mount
// shows) mentions a needle.
func leakedMounts(needles []string) []string {
	mounts, err := mountinfo.GetMounts(nil)
	if err != nil {
		return []string{fmt.Sprintf("cannot read mounts: %v", err)}
	}
	var out []string
	for _, m := range mounts {
		if containsAny(m.Mountpoint, needles) || containsAny(m.Source, needles) || containsAny(m.Root, needles) {
			out = append(out, fmt.Sprintf("mount still present: %q", m.Mountpoint))
		}
	}
	return out
}

// leakedCgroups lists cgroup directories (up to depth below root) named after a needle.
func leakedCgroups(root string, needles []string, depth int) []string {
	var out []string
	base := strings.Count(root, "/")
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // permission or vanished: not ours to judge
		}
		if !d.IsDir() {
			return nil
		}
		if strings.Count(path, "/")-base > depth {
			return fs.SkipDir
		}
		if path != root && containsAny(d.Name(), needles) {
			out = append(out, "cgroup still present: "+path)
			return fs.SkipDir
		}
		return nil
	})
	return out
}

// leakedOCIContainers lists OCI containers under root whose ID or bundle mentions a needle.
func leakedOCIContainers(ctx context.Context, ociRuntime, root string, needles []string) []string {
	if _, err := os.Stat(root); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	out, err := exec.CommandContext(ctx, ociRuntime, "--root", root, "list", "--format", "json").Output()
	if err != nil {
		return []string{fmt.Sprintf("%s --root %s list failed: %v", ociRuntime, root, err)}
	}
	var list []struct {
		ID     string `json:"id"`
		Bundle string `json:"bundle"`
		Status string `json:"status"`
	}
	if len(bytes.TrimSpace(out)) > 0 && !bytes.Equal(bytes.TrimSpace(out), []byte("null")) {
		if err := json.Unmarshal(out, &list); err != nil {
			return []string{fmt.Sprintf("decode %s list: %v", ociRuntime, err)}
		}
	}
	var leaks []string
	for _, c := range list {
		if containsAny(c.ID, needles) || containsAny(c.Bundle, needles) {
			leaks = append(leaks, fmt.Sprintf("OCI container %s (%s) still under %s", c.ID, c.Status, root))
		}
	}
	return leaks
}
