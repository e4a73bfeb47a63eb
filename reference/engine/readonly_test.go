package engine_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestVOL009_ReadOnlyMountIsReadOnlyAllTheWayDown mounts a tmpfs below a host directory and that
// directory read-only in a container: a write to the tmpfs through the container's mount must
// fail and leave the host's file as it was.
func TestVOL009_ReadOnlyMountIsReadOnlyAllTheWayDown(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("podspec-test", sub, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Unmount(sub, unix.MNT_DETACH) })
	file := filepath.Join(sub, "f")
	if err := os.WriteFile(file, []byte("host"), 0o666); err != nil {
		t.Fatal(err)
	}
	tp := startPod(t, `
apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: read-only-tree}
spec:
  restartPolicy: Never
  volumes: [{name: tree, hostPath: {path: `+dir+`}}]
  containers:
  - {name: app, image: IMAGE, command: [sh, -c, "echo container > /h/sub/f"], volumeMounts: [{name: tree, mountPath: /h, readOnly: true}]}
`)
	st := tp.wait(30 * time.Second)
	if b, err := os.ReadFile(file); err != nil || string(b) != "host" {
		t.Fatalf("the host's file below the read-only volume reads %q (%v), want %q: the container wrote through it\n%s", b, err, "host", tp.timeline())
	}
	app := tp.container("app")
	if term := app.State.Terminated; term == nil || term.ExitCode == nil || *term.ExitCode == 0 {
		t.Fatalf("app's write did not fail: %+v (pod %s)\n%s", app, st.Phase, tp.timeline())
	}
}
