package oci

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFeaturesAreAskedOfTheRuntime probes each OCI runtime this host has (skipping those not
// installed) and checks what it answered against what each one is known to have: runc's
// features document and --no-subreaper, crun's --no-subreaper without a document, runsc's
// lack of both --no-subreaper and update and its pids of the sandbox's own (exec
// --internal-pid-file, kill --pid), which neither runc nor crun has. The probe is kept in FeaturesFile for the next
// process and used again only while the binary is the same file.
func TestFeaturesAreAskedOfTheRuntime(t *testing.T) {
	for _, c := range []struct {
		bin                                        string
		document, noSubreaper, update, sandboxPIDs bool
	}{
		{"runc", true, true, true, false},
		{"crun", false, true, true, false},
		{"runsc", false, false, false, true},
	} {
		t.Run(c.bin, func(t *testing.T) {
			if _, err := exec.LookPath(c.bin); err != nil {
				t.Skipf("%s not installed", c.bin)
			}
			file := filepath.Join(t.TempDir(), "features.json")
			r := &Runtime{Binary: c.bin, Root: t.TempDir(), FeaturesFile: file}
			f, err := r.Features(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if f.Document != c.document || f.NoSubreaper != c.noSubreaper || f.Update != c.update || f.SandboxPIDs != c.sandboxPIDs || f.Version == "" {
				t.Errorf("%s: %+v; want document %v, noSubreaper %v, update %v, sandboxPids %v", c.bin, f, c.document, c.noSubreaper, c.update, c.sandboxPIDs)
			}
			if c.document && !strings.Contains(strings.Join(f.Hooks, ","), "createRuntime") {
				t.Errorf("%s: hooks %v from its features document, want createRuntime among them", c.bin, f.Hooks)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("the probe was not kept: %v", err)
			}
			var kept Features
			if err := json.Unmarshal(b, &kept); err != nil || kept.Binary != f.Binary || kept.NoSubreaper != f.NoSubreaper {
				t.Errorf("kept %s (%v), want %+v", b, err, f)
			}
			// A kept probe of an older schema, which lacks what was asked since, is not used.
			kept.Schema = featuresSchema - 1
			b, _ = json.Marshal(kept)
			os.WriteFile(file, b, 0o600)
			if got := r.readFeaturesFile(f.Binary); got != nil {
				t.Errorf("a kept probe of an older schema was used: %+v", got)
			}
			// A kept probe of another binary (or an older copy of this one) is not used.
			kept.Binary, kept.Version, kept.Schema = "elsewhere", "stale", featuresSchema
			b, _ = json.Marshal(kept)
			os.WriteFile(file, b, 0o600)
			if got := r.readFeaturesFile(f.Binary); got != nil {
				t.Errorf("a kept probe of another binary was used: %+v", got)
			}
		})
	}
}

// TestCrunRefusesHybridCgroupsUnlessMasked shows the error crun 1.8 gives on a host with
// hybrid cgroups whose cgroup2 hierarchy holds a controller — for a config without
// cgroupsPath or resources, and with --cgroup-manager=disabled too, so neither crun's own
// options nor the config avoid it — and that the same container is created once the
// controllers are masked, which is what the probe finds and every invocation then does.
func TestCrunRefusesHybridCgroupsUnlessMasked(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if _, err := exec.LookPath("crun"); err != nil {
		t.Skip("crun not installed")
	}
	if !hybridControllersInUse() {
		t.Skipf("no controller in %s: crun has nothing to refuse here", HybridControllers)
	}
	dir := t.TempDir()
	for _, d := range []string{"rootfs/proc", "rootfs/dev"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"ociVersion":"1.0.2","root":{"path":"rootfs"},
		"process":{"args":["/proc/self/exe"],"cwd":"/"},"mounts":[{"destination":"/proc","type":"proc","source":"proc"}],
		"linux":{"namespaces":[{"type":"mount"},{"type":"pid"}]}}`), 0o600)
	root := t.TempDir()
	for _, global := range [][]string{nil, {"--cgroup-manager=disabled"}} {
		args := append(append([]string{"--root", root}, global...), "create", "--bundle", dir, "plain")
		out, err := exec.Command("crun", args...).CombinedOutput()
		exec.Command("crun", "--root", root, "delete", "--force", "plain").Run()
		if err == nil || !strings.Contains(string(out), "cgroups in hybrid mode not supported") {
			t.Errorf("crun %v: %v %s; want the hybrid-mode refusal", args, err, out)
		}
	}
	r := &Runtime{Binary: "crun", Root: root, features: &Features{MaskHybridControllers: true}}
	if _, err := r.Create(context.Background(), "masked", dir, IO{}); err != nil {
		t.Fatalf("masked: %v", err)
	}
	if err := r.Delete(context.Background(), "masked", true); err != nil {
		t.Fatal(err)
	}
	plain := &Runtime{Binary: "crun", Root: root}
	if !plain.needsMask(context.Background()) {
		t.Errorf("the probe did not find that crun needs the mask")
	}
	if b, _ := os.ReadFile(HybridControllers); len(strings.TrimSpace(string(b))) == 0 {
		t.Errorf("the mask leaked into the host's mount namespace: %s reads empty", HybridControllers)
	}
}

// TestRecursiveReadOnlyOption: runc's features document lists "rro", crun (no document, host
// kernel) applies it, runsc (a sandbox kernel) gets none and is read-only as a whole with "ro";
// a runtime whose document lacks "rro" is refused, naming what is missing.
func TestRecursiveReadOnlyOption(t *testing.T) {
	for _, c := range []struct {
		name string
		f    Features
		want string
	}{
		{"a document listing rro", Features{Document: true, MountOptions: []string{"ro", "rro"}}, "rro"},
		{"no document, the host's kernel", Features{}, "rro"},
		{"no document, a sandbox kernel", Features{SandboxPIDs: true}, ""},
	} {
		if got, err := c.f.RecursiveReadOnlyOption(); err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	_, err := (&Features{Document: true, Version: "runc version 1.0.0", MountOptions: []string{"ro"}}).RecursiveReadOnlyOption()
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `"rro"`) || !strings.Contains(err.Error(), "runc version 1.0.0") {
		t.Errorf("a document without rro: %v, want ErrUnsupported naming the runtime and rro", err)
	}
	if _, err := exec.LookPath("runc"); err == nil {
		f, err := (&Runtime{Binary: "runc", Root: t.TempDir()}).Features(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if o, err := f.RecursiveReadOnlyOption(); err != nil || o != "rro" {
			t.Errorf("runc %s: %q, %v; want rro from its features document %v", f.Version, o, err, f.MountOptions)
		}
	}
}
