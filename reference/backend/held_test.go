package backend

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"

	"podspec.dev/podspec/internal/flock"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/image"
	"podspec.dev/podspec/reference/oci"
)

// heldEnv is a busybox bundle whose config carries the held hook, and a backend whose OCI
// runtime state lives in the test's directory. Everything it starts is removed at the end.
type heldEnv struct {
	b      *Backend
	bundle string
	id     string
}

// newHeldEnv prepares the bundle of a container whose program is args (default: sleep 60).
func newHeldEnv(t *testing.T, args ...string) *heldEnv {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if _, err := exec.LookPath("runc"); err != nil {
		t.Skip("needs runc")
	}
	if _, err := os.Stat(ocilayout.BusyboxPath); err != nil {
		t.Skip("needs busybox-static")
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	layout := filepath.Join(dir, "busybox")
	if _, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{Busybox: true}); err != nil {
		t.Fatal(err)
	}
	images := &image.Store{Root: filepath.Join(dir, "images")}
	ref, err := ocilayout.ParseReference("oci:"+layout, "")
	if err != nil {
		t.Fatal(err)
	}
	img, err := images.Resolve(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(dir, "bundle")
	os.MkdirAll(bundle, 0o700)
	cleanup, err := images.NewRootfs(ctx, img, filepath.Join(bundle, "rootfs"))
	if err != nil {
		t.Fatal(err)
	}
	e := &heldEnv{b: &Backend{Runtime: &oci.Runtime{Root: filepath.Join(dir, "runc")}}, bundle: bundle, id: "held-" + strings.ToLower(t.Name()[4:])}
	t.Cleanup(func() {
		e.b.release(e.id, false)
		e.b.Runtime.Delete(context.Background(), e.id, true)
		cleanup()
	})
	if len(args) == 0 {
		args = []string{"sleep", "60"}
	}
	cfg := oci.ContainerConfig{Rootfs: filepath.Join(bundle, "rootfs"), Args: args,
		CgroupsPath: "/podspec-test/" + e.id, CreateRuntime: []specs.Hook{HeldHook(bundle)}}
	if err := oci.WriteBundle(bundle, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { oci.RemoveCgroup("/podspec-test/" + e.id) })
	return e
}

// comm is the name of the program process pid runs ("runc:[2:INIT]" while in runc's init).
func comm(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	return strings.TrimSpace(string(b))
}

// TestHeldInstanceRunsItsProgramOnlyOnceReleased: after createHeld the container exists with
// its process in the runtime's init (the program has not run) for as long as nobody releases
// it; release(run) starts the program, and the process is then this process's child.
func TestHeldInstanceRunsItsProgramOnlyOnceReleased(t *testing.T) {
	e := newHeldEnv(t)
	ctx := context.Background()
	pid, err := e.b.createHeld(ctx, e.id, e.bundle, oci.IO{})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if c := comm(pid); !strings.HasPrefix(c, "runc:") {
		t.Fatalf("held for 300 ms, the process runs %q; want it still in runc's init", c)
	}
	// runc records the container's state only once its hooks have run: until then it does
	// not know it, which is what an adopting supervisor must read as "never ran".
	if st, err := e.b.Runtime.State(ctx, e.id); err == nil && st.Status == oci.StatusRunning {
		t.Errorf("held: the runtime reports the container running")
	}
	if held, err := e.b.release(e.id, true); !held || err != nil {
		t.Fatalf("release(run) = %v, %v; want held, no error", held, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for strings.HasPrefix(comm(pid), "runc:") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if c := comm(pid); c != "sleep" {
		t.Fatalf("released: the process runs %q, want sleep", c)
	}
	if err := unix.Kill(pid, unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var ws unix.WaitStatus
	if got, err := unix.Wait4(pid, &ws, 0, nil); got != pid || err != nil || ws.Signal() != unix.SIGKILL {
		t.Errorf("wait4 of the container's process: %d, %v, %v; want it a child of this subreaper, killed", got, err, ws)
	}
	if _, err := os.Stat(filepath.Join(e.bundle, CreatedFIFO)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the hook's FIFOs are left in the bundle: %v", err)
	}
}

// TestAbandonedHeldInstanceIsDestroyed: release without run (an update or a stop during the
// creation, or a supervisor that went away) makes the hook fail; the runtime then destroys
// the container, whose program never ran.
func TestAbandonedHeldInstanceIsDestroyed(t *testing.T) {
	e := newHeldEnv(t)
	ctx := context.Background()
	pid, err := e.b.createHeld(ctx, e.id, e.bundle, oci.IO{})
	if err != nil {
		t.Fatal(err)
	}
	if held, err := e.b.release(e.id, false); !held || err != nil {
		t.Fatalf("release(abandon) = %v, %v; want held, no error", held, err)
	}
	if _, err := e.b.Runtime.State(ctx, e.id); !errors.Is(err, oci.ErrNotFound) {
		t.Errorf("abandoned: the runtime still knows the container (%v)", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for unix.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		time.Sleep(5 * time.Millisecond)
	}
	if unix.Kill(pid, 0) == nil {
		t.Errorf("abandoned: the container's process %d (%s) still exists", pid, comm(pid))
	}
	if held, _ := e.b.release(e.id, true); held {
		t.Errorf("a released instance is still held")
	}
}

// TestWaitForACreationSlotIsNotTheCreationsTime: with the host's only creation slot held for
// longer than a creation may take (createTimeout, shortened here), a creation waits, and once
// the slot is freed it creates the instance: the wait does not count against its timeout (at
// 1,000 pods, waits of minutes are expected, creations of minutes are not).
func TestWaitForACreationSlotIsNotTheCreationsTime(t *testing.T) {
	e := newHeldEnv(t)
	e.b.CreateSlots, e.b.HostCreateParallelism = filepath.Join(t.TempDir(), "slots"), 1
	defer func(d time.Duration) { createTimeout = d }(createTimeout)
	createTimeout = 10 * time.Second
	ctx := context.Background()
	hold, err := flock.Slot(ctx, e.b.CreateSlots, 1)
	if err != nil {
		t.Fatal(err)
	}
	type created struct {
		pid int
		err error
	}
	got := make(chan created, 1)
	go func() {
		pid, err := e.b.createHeld(ctx, e.id, e.bundle, oci.IO{})
		got <- created{pid, err}
	}()
	select {
	case c := <-got:
		t.Fatalf("created (pid %d, %v) while the only slot was held", c.pid, c.err)
	case <-time.After(createTimeout + time.Second):
	}
	hold()
	c := <-got
	if c.err != nil {
		t.Fatalf("created after waiting %s for the slot: %v; want the wait not counted in its %s", createTimeout+time.Second, c.err, createTimeout)
	}
	if held, err := e.b.release(e.id, true); !held || err != nil {
		t.Fatalf("release(run) = %v, %v; want held, no error", held, err)
	}
}
