package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"

	"podspec.dev/podspec/bench/internal/host"
	"podspec.dev/podspec/ocilayout"
)

// peer is one runtime of the -peers measurement: a runtime command prefix (the contract's
// --runtime form) and its name in the report.
type peer struct {
	name string
	cmd  []string
}

// parsePeers reads NAME=COMMAND,... where COMMAND is split on white space and may name
// ROOT, replaced by a state directory of its own.
func parsePeers(s string) ([]peer, error) {
	var out []peer
	for _, item := range strings.Split(s, ",") {
		name, cmd, ok := strings.Cut(item, "=")
		if !ok || name == "" || strings.TrimSpace(cmd) == "" {
			return nil, fmt.Errorf("-peers %q: want a comma-separated list of NAME=COMMAND", item)
		}
		out = append(out, peer{name: name, cmd: strings.Fields(cmd)})
	}
	return out, nil
}

// runPeers measures start→exit of the 3-container pod (three main containers running `true`,
// exit policy All, restart policy Never): `run --detach` until `wait` returns the terminal
// status, on every runtime in turn within each repetition (so that the machine's drift hits
// them alike), and prints the medians and their ratios to the first runtime's.
func runPeers(peers []peer, n int) error {
	ctx := context.Background()
	work, err := os.MkdirTemp("", "psb-") // short: podman refuses a runroot longer than 50 characters
	if err != nil {
		return err
	}
	defer func() {
		// A runtime's storage may stay mounted under its root (podman bind-mounts its overlay
		// directory): unmount what is left, deepest first, then remove the directory.
		if mounts, err := mountinfo.GetMounts(mountinfo.PrefixFilter(work)); err == nil {
			var under []string
			for _, m := range mounts {
				if m.Mountpoint != work {
					under = append(under, m.Mountpoint)
				}
			}
			for i := len(under) - 1; i >= 0; i-- {
				_ = unix.Unmount(under[i], unix.MNT_DETACH)
			}
		}
		os.RemoveAll(work)
	}()
	layout := filepath.Join(work, "busybox")
	if _, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{Busybox: true, Tag: "latest"}); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: bench}\nspec:\n  restartPolicy: Never\n  containers:\n")
	for _, c := range containers {
		fmt.Fprintf(&b, "  - {name: %s, image: \"oci:%s:latest\", command: [\"true\"]}\n", c, layout)
	}
	manifest := filepath.Join(work, "pod.yaml")
	if err := os.WriteFile(manifest, []byte(b.String()), 0o644); err != nil {
		return err
	}
	cmdOf := func(p peer) []string {
		root := filepath.Join(work, p.name)
		out := make([]string, len(p.cmd))
		for j, a := range p.cmd {
			out[j] = strings.ReplaceAll(a, "ROOT", root)
		}
		return out
	}
	once := func(p peer, name string) (time.Duration, error) {
		c := cmdOf(p)
		runIt := func(args ...string) error {
			cmd := exec.Command(c[0], append(append(append([]string{}, c[1:]...), "--error-format", "json"), args...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%s %s: %v: %s", p.name, strings.Join(args, " "), err, out)
			}
			return nil
		}
		t0 := time.Now()
		if err := runIt("run", "--detach", "--name", name, manifest); err != nil {
			return 0, err
		}
		if err := runIt("wait", "--timeout", "120s", name); err != nil {
			return 0, err
		}
		d := time.Since(t0)
		return d, runIt("rm", name)
	}
	times := make([][]time.Duration, len(peers))
	for i := -1; i < n; i++ { // i == -1: warm-up (images, probes), not counted
		for j, p := range peers {
			d, err := once(p, fmt.Sprintf("b%d", i+1))
			if err != nil {
				return err
			}
			if i >= 0 {
				times[j] = append(times[j], d)
			}
		}
	}
	hostname, _ := os.Hostname()
	fmt.Printf("Machine: %s, %d CPUs, %s\n\n", hostname, host.NumCPU(), host.Kernel())
	fmt.Printf("| runtime | start→exit of the 3-container pod (n=%d, ms: median / min / max) | ratio to %s (median) |\n|---|---|---|\n", n, peers[0].name)
	for j, p := range peers {
		fmt.Printf("| %s (`%s`) | %s | %.2f× |\n", p.name, strings.Join(p.cmd, " "), stats(times[j]), ratio(times[j], times[0]))
	}
	return nil
}
