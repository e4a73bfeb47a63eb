package image

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/oci"
)

// TestInstancesOnFreshRootfsUnderRunc runs two container instances of one busybox image with
// runc: the first writes and deletes files, the second must see the image as built.
func TestInstancesOnFreshRootfsUnderRunc(t *testing.T) {
	needRoot(t)
	if _, err := exec.LookPath(oci.DefaultBinary); err != nil {
		t.Skip("runc not installed")
	}
	if _, err := os.Stat(ocilayout.BusyboxPath); err != nil {
		t.Skip("busybox-static not installed")
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store, layout := testStore(t)
	if _, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{Busybox: true}); err != nil {
		t.Fatal(err)
	}
	ref, _ := ocilayout.ParseReference("oci:"+layout, "")
	img, err := store.Resolve(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	rt := &oci.Runtime{Root: filepath.Join(base, "runc")}
	cgroup := fmt.Sprintf("/podspec-test-image-%d", os.Getpid())
	t.Cleanup(func() {
		list, _ := rt.List(ctx)
		for _, c := range list {
			_ = rt.Delete(ctx, c.ID, true)
		}
		if err := oci.RemoveCgroup(cgroup); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	run := func(id, script string) string {
		t.Helper()
		bundle := filepath.Join(base, id)
		if err := os.MkdirAll(bundle, 0o700); err != nil {
			t.Fatal(err)
		}
		cleanup, err := store.NewRootfs(ctx, img, filepath.Join(bundle, "rootfs"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := cleanup(); err != nil {
				t.Errorf("rootfs cleanup: %v", err)
			}
		})
		if err := oci.WriteBundle(bundle, oci.ContainerConfig{Rootfs: "rootfs", Args: []string{"sh", "-c", script}, Env: img.Env, CgroupsPath: cgroup + "/" + id}); err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(base, id+".out"))
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		pid, err := rt.Create(ctx, id, bundle, oci.IO{Stdout: out, Stderr: out})
		if err != nil {
			t.Fatalf("create %s: %v", id, err)
		}
		if err := rt.Start(ctx, id); err != nil {
			t.Fatalf("start %s: %v", id, err)
		}
		var ws unix.WaitStatus
		if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil {
			t.Fatal(err)
		}
		if err := rt.Delete(ctx, id, false); err != nil && !errors.Is(err, oci.ErrNotFound) {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(out.Name())
		if ws.ExitStatus() != 0 {
			t.Fatalf("%s exited %d: %s", id, ws.ExitStatus(), b)
		}
		return strings.TrimSpace(string(b))
	}
	if got := run("first", "echo scribble > /etc/scribble && rm /bin/ls && echo done"); got != "done" {
		t.Fatalf("first instance output %q", got)
	}
	got := run("second", "test -e /etc/scribble && echo scribble-visible; test -e /bin/ls && echo ls-present")
	if got != "ls-present" {
		t.Fatalf("second instance saw %q, want only ls-present (a fresh root filesystem)", got)
	}
}
