package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// testBinary is the OCI runtime the tests drive: $PODSPEC_TEST_OCI_RUNTIME, default runc.
func testBinary() string {
	if b := os.Getenv("PODSPEC_TEST_OCI_RUNTIME"); b != "" {
		return b
	}
	return DefaultBinary
}

// needRunc skips the test unless it runs as root with runc and busybox available; CI runs the
// tests as root with both installed.
func needRunc(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (runs real containers with runc)")
	}
	if _, err := exec.LookPath(testBinary()); err != nil {
		t.Skipf("%s not installed", testBinary())
	}
	if _, err := os.Stat("/bin/busybox"); err != nil {
		t.Skip("busybox-static not installed at /bin/busybox")
	}
}

var subreaperOnce sync.Once

// becomeSubreaper makes the test process the reaper of the containers it creates, so it can
// wait for their exit status (runc does not report it).
func becomeSubreaper(t *testing.T) {
	subreaperOnce.Do(func() {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			t.Fatalf("prctl(PR_SET_CHILD_SUBREAPER): %v", err)
		}
	})
}

// waitPid waits for pid (a container init reparented to us) and returns its exit code, or
// 128+signal when it was killed.
func waitPid(t *testing.T, pid int, timeout time.Duration) int {
	t.Helper()
	type res struct {
		ws  unix.WaitStatus
		err error
	}
	ch := make(chan res, 1)
	go func() {
		var ws unix.WaitStatus
		_, err := unix.Wait4(pid, &ws, 0, nil)
		ch <- res{ws, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("wait4(%d): %v", pid, r.err)
		}
		if r.ws.Signaled() {
			return 128 + int(r.ws.Signal())
		}
		return r.ws.ExitStatus()
	case <-time.After(timeout):
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		ps, _ := exec.Command("ps", "-eo", "pid,ppid,pgid,stat,args").Output()
		t.Fatalf("pid %d did not exit within %s; status:\n%s\n%s", pid, timeout, status, ps)
		return -1
	}
}

// busyboxRootfs makes a minimal root filesystem with busybox and its applets.
func busyboxRootfs(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "rootfs")
	for _, d := range []string{"bin", "proc", "sys", "dev", "etc", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.Open("/bin/busybox")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(filepath.Join(root, "bin", "busybox"), os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"sh", "sleep", "cat", "echo", "true", "false", "hostname", "readlink", "ps", "ip", "id", "ls", "wc", "setsid"} {
		if err := os.Symlink("busybox", filepath.Join(root, "bin", a)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// testEnv is a runtime with a private state directory and a private cgroup parent, both
// removed (with every container) when the test ends.
type testEnv struct {
	rt     *Runtime
	cgroup string // parent cgroup, e.g. /podspec-test/<name>
	dir    string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	needRunc(t)
	becomeSubreaper(t)
	dir := t.TempDir()
	e := &testEnv{
		rt:     &Runtime{Binary: testBinary(), Root: filepath.Join(dir, "runtime-root")},
		cgroup: fmt.Sprintf("/podspec-test/%s-%d", sanitize(t.Name()), time.Now().UnixNano()),
		dir:    dir,
	}
	t.Cleanup(func() {
		ctx := context.Background()
		list, err := e.rt.List(ctx)
		if err != nil {
			t.Errorf("cleanup: list: %v", err)
		}
		for _, c := range list {
			if err := e.rt.Delete(ctx, c.ID, true); err != nil && !errors.Is(err, ErrNotFound) {
				t.Errorf("cleanup: delete %s: %v", c.ID, err)
			}
			if c.Pid > 0 {
				var ws unix.WaitStatus
				_, _ = unix.Wait4(c.Pid, &ws, unix.WNOHANG, nil)
			}
		}
		if err := removeCgroupEventually(e.cgroup); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		_ = RemoveCgroup("/podspec-test") // shared parent: succeeds once the last test is done
	})
	return e
}

// removeCgroupEventually retries while killed processes leave the cgroup.
func removeCgroupEventually(path string) error {
	var err error
	for i := 0; i < 100; i++ {
		if err = RemoveCgroup(path); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, s)
}

// bundle writes a bundle for c (rootfs defaulted to a busybox one) and returns its directory.
func (e *testEnv) bundle(t *testing.T, name string, c ContainerConfig) string {
	t.Helper()
	if c.Rootfs == "" {
		c.Rootfs = busyboxRootfs(t)
	}
	if c.CgroupsPath == "" {
		c.CgroupsPath = e.cgroup + "/" + name
	}
	dir := filepath.Join(e.dir, "bundles", name)
	if err := WriteBundle(dir, c); err != nil {
		t.Fatal(err)
	}
	return dir
}

func outFile(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readFile(t *testing.T, f *os.File) string {
	t.Helper()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestContainerLifecycle(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	out := outFile(t, "stdout")
	b := e.bundle(t, "life", ContainerConfig{Args: []string{"sh", "-c", `trap 'echo got-term; exit 7' TERM; echo started; while :; do sleep 0.05; done`}})

	pid, err := e.rt.Create(ctx, "life", b, IO{Stdout: out})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if pid <= 0 {
		t.Fatalf("create returned pid %d", pid)
	}
	st, err := e.rt.State(ctx, "life")
	if err != nil {
		t.Fatalf("state: %v", err)
	}
	if st.Status != StatusCreated || st.Pid != pid {
		t.Fatalf("state after create = %s pid %d, want created pid %d", st.Status, st.Pid, pid)
	}
	if _, err := e.rt.Create(ctx, "life", b, IO{}); !errors.Is(err, ErrExists) {
		t.Fatalf("second create with the same id: err = %v, want ErrExists", err)
	}
	if err := e.rt.Start(ctx, "life"); err != nil {
		t.Fatalf("start: %v", err)
	}
	waitFor(t, func() bool { return strings.Contains(readFile(t, out), "started") })
	st, err = e.rt.State(ctx, "life")
	if err != nil || st.Status != StatusRunning {
		t.Fatalf("state after start = %+v, %v; want running", st, err)
	}
	list, err := e.rt.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != "life" {
		t.Fatalf("list = %+v, %v; want the one container", list, err)
	}
	if err := e.rt.Kill(ctx, "life", syscall.SIGTERM, false); err != nil {
		t.Fatalf("kill: %v", err)
	}
	if code := waitPid(t, pid, 10*time.Second); code != 7 {
		t.Fatalf("exit code seen by the waiter = %d, want 7 (from the trap)", code)
	}
	if !strings.Contains(readFile(t, out), "got-term") {
		t.Fatalf("container output %q lacks got-term", readFile(t, out))
	}
	st, err = e.rt.State(ctx, "life")
	if err != nil || st.Status != StatusStopped {
		t.Fatalf("state after exit = %+v, %v; want stopped", st, err)
	}
	if err := e.rt.Kill(ctx, "life", syscall.SIGTERM, false); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("kill of a stopped container: err = %v, want ErrNotRunning", err)
	}
	if err := e.rt.Delete(ctx, "life", false); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := e.rt.State(ctx, "life"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("state after delete: err = %v, want ErrNotFound", err)
	}
	if err := e.rt.Delete(ctx, "life", false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: err = %v, want ErrNotFound", err)
	}
	if err := e.rt.Delete(ctx, "life", true); err != nil {
		t.Fatalf("forced delete of a deleted container: err = %v, want nil (idempotent)", err)
	}
}

func TestExitCodeComesFromTheWaiter(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	cases := []struct {
		name string
		args []string
		kill bool
		want int
	}{
		{"a process that exits 3 is seen exiting 3", []string{"sh", "-c", "exit 3"}, false, 3},
		{"a process that exits 0 is seen exiting 0", []string{"true"}, false, 0},
		{"a process killed by SIGKILL is seen as 137", []string{"sleep", "100"}, true, 137},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprintf("exit%d", i)
			b := e.bundle(t, id, ContainerConfig{Args: tc.args})
			pid, err := e.rt.Create(ctx, id, b, IO{})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if err := e.rt.Start(ctx, id); err != nil {
				t.Fatalf("start: %v", err)
			}
			if tc.kill {
				if err := e.rt.Kill(ctx, id, syscall.SIGKILL, false); err != nil {
					t.Fatalf("kill: %v", err)
				}
			}
			if got := waitPid(t, pid, 10*time.Second); got != tc.want {
				t.Fatalf("exit code = %d, want %d", got, tc.want)
			}
			if err := e.rt.Delete(ctx, id, false); err != nil {
				t.Fatalf("delete: %v", err)
			}
		})
	}
}

func TestCreateFailureIsReportedWithTheRuntimeMessage(t *testing.T) {
	e := newTestEnv(t)
	b := e.bundle(t, "bad", ContainerConfig{Args: []string{"/no/such/binary"}})
	pid, err := e.rt.Create(context.Background(), "bad", b, IO{})
	if err == nil {
		// runc reports a missing binary at create time; tolerate runtimes that defer it.
		_ = e.rt.Delete(context.Background(), "bad", true)
		waitPid(t, pid, 10*time.Second)
		t.Fatalf("create of a container whose binary is missing succeeded")
	}
	var oe *Error
	if !errors.As(err, &oe) || !strings.Contains(strings.ToLower(oe.Message), "no such file") {
		t.Fatalf("err = %v, want an *Error naming the missing file", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runningContainer creates and starts a long-running container and returns its pid.
func (e *testEnv) runningContainer(t *testing.T, id string, c ContainerConfig) int {
	t.Helper()
	if len(c.Args) == 0 {
		c.Args = []string{"sh", "-c", "trap 'exit 0' TERM; while :; do sleep 0.1; done"}
	}
	b := e.bundle(t, id, c)
	ctx := context.Background()
	pid, err := e.rt.Create(ctx, id, b, IO{})
	if err != nil {
		t.Fatalf("create %s: %v", id, err)
	}
	if err := e.rt.Start(ctx, id); err != nil {
		t.Fatalf("start %s: %v", id, err)
	}
	t.Cleanup(func() {
		// SIGKILL to the init of a pid namespace kills every process in it.
		if err := e.rt.Kill(context.Background(), id, syscall.SIGKILL, false); err != nil && !errors.Is(err, ErrNotRunning) {
			t.Errorf("cleanup: kill %s: %v", id, err)
		}
		waitPid(t, pid, 10*time.Second)
		_ = e.rt.Delete(context.Background(), id, true)
	})
	return pid
}

func TestExec(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	e.runningContainer(t, "ex", ContainerConfig{Env: []string{"FROM_CONTAINER=yes"}})

	cases := []struct {
		name     string
		p        ExecProcess
		wantCode int
		wantOut  string
		wantErr  bool
	}{
		{name: "an exit code propagates", p: ExecProcess{Args: []string{"sh", "-c", "exit 7"}}, wantCode: 7},
		{name: "a process exiting 255 is not a runtime failure", p: ExecProcess{Args: []string{"sh", "-c", "exit 255"}}, wantCode: 255},
		{name: "stdout goes to the given file and the container env is inherited",
			p:        ExecProcess{Args: []string{"sh", "-c", "echo $FROM_CONTAINER $EXTRA; pwd"}, Env: []string{"EXTRA=x"}, Cwd: "/tmp"},
			wantCode: 0, wantOut: "yes x\n/tmp\n"},
		{name: "a missing binary is a runtime failure", p: ExecProcess{Args: []string{"/no/such/binary"}}, wantCode: -1, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := outFile(t, "out")
			tc.p.Stdout = out
			code, err := e.rt.Exec(ctx, "ex", tc.p)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if code != tc.wantCode {
				t.Fatalf("code = %d, want %d", code, tc.wantCode)
			}
			if tc.wantOut != "" && readFile(t, out) != tc.wantOut {
				t.Fatalf("output = %q, want %q", readFile(t, out), tc.wantOut)
			}
		})
	}

	t.Run("a timeout kills the whole exec'd process tree", func(t *testing.T) {
		out := outFile(t, "out")
		start := time.Now()
		_, err := e.rt.Exec(ctx, "ex", ExecProcess{
			Args:    []string{"sh", "-c", "sleep 3107 & (sleep 3108 &) ; echo forked; sleep 3109"},
			Stdout:  out,
			Timeout: 500 * time.Millisecond,
		})
		if !errors.Is(err, ErrExecTimeout) {
			t.Fatalf("err = %v, want ErrExecTimeout (after %s, output %q)", err, time.Since(start), readFile(t, out))
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("exec returned after %s", d)
		}
		waitFor(t, func() bool {
			ps, _ := exec.Command("ps", "-eo", "args").Output()
			// Durations no other test uses: ps sees every process on the machine, and other
			// packages' tests run containers concurrently.
			return !strings.Contains(string(ps), "sleep 3107") && !strings.Contains(string(ps), "sleep 3108") && !strings.Contains(string(ps), "sleep 3109")
		})
	})

	t.Run("Begun is called once the process has begun, before it ends", func(t *testing.T) {
		checkBegunOnce(t, e.rt, "ex")
	})

	t.Run("Begun is not called for a process that never began", func(t *testing.T) {
		called := false
		if _, err := e.rt.Exec(ctx, "ex", ExecProcess{Args: []string{"/no/such/binary"}, Begun: func() { called = true }}); err == nil {
			t.Fatal("exec of a missing binary succeeded")
		}
		if called {
			t.Error("Begun was called for a binary that does not exist")
		}
	})

	t.Run("exec in an unknown container is ErrNotFound", func(t *testing.T) {
		if _, err := e.rt.Exec(ctx, "nope", ExecProcess{Args: []string{"true"}}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
	})
}

// checkBegunOnce runs `sleep 2` in container id and checks that Begun is called once, while
// the process runs (not at its end).
func checkBegunOnce(t *testing.T, rt *Runtime, id string) {
	t.Helper()
	var begunAt time.Time
	calls := 0
	start := time.Now()
	code, err := rt.Exec(context.Background(), id, ExecProcess{Args: []string{"sleep", "2"}, Begun: func() { calls++; begunAt = time.Now() }})
	ended := time.Now()
	if err != nil || code != 0 {
		t.Fatalf("exec: code %d, err %v", code, err)
	}
	if calls != 1 {
		t.Fatalf("Begun called %d times, want once", calls)
	}
	if ended.Sub(begunAt) < time.Second {
		t.Fatalf("Begun called %s after the exec began and %s before it returned: want it once the process ran, not at its end", begunAt.Sub(start), ended.Sub(begunAt))
	}
}

func TestUpdateMemoryLive(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	e.runningContainer(t, "upd", ContainerConfig{Resources: Resources{
		MemoryLimitBytes: 64 << 20, PidsLimit: 50, CPURequestMilli: 500, CPULimitMilli: 250,
	}})
	cg := e.cgroup + "/upd"
	read := func(ctrl, file string) string {
		t.Helper()
		p, err := CgroupFile(cg, ctrl, file)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	for _, c := range []struct{ ctrl, file, want string }{
		{"memory", "memory.limit_in_bytes", strconv.Itoa(64 << 20)},
		{"pids", "pids.max", "50"},
		{"cpu", "cpu.shares", "512"},
		{"cpu", "cpu.cfs_quota_us", "25000"},
		{"cpu", "cpu.cfs_period_us", "100000"},
	} {
		if got := read(c.ctrl, c.file); got != c.want {
			t.Errorf("initial %s = %s, want %s", c.file, got, c.want)
		}
	}
	limit := int64(32 << 20)
	if err := e.rt.Update(ctx, "upd", &specs.LinuxResources{Memory: &specs.LinuxMemory{Limit: &limit}}); err != nil {
		t.Fatalf("update: %v", err)
	}
	if got := read("memory", "memory.limit_in_bytes"); got != strconv.Itoa(32<<20) {
		t.Fatalf("memory.limit_in_bytes after update = %s, want %d", got, 32<<20)
	}
	if err := e.rt.Update(ctx, "nope", &specs.LinuxResources{Memory: &specs.LinuxMemory{Limit: &limit}}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update of an unknown container: err = %v, want ErrNotFound", err)
	}
}

func TestJoiningInfraNamespaces(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	infraPid := e.runningContainer(t, "infra", ContainerConfig{Hostname: "mypod"})
	join := map[string]string{}
	for ns, file := range map[string]string{NamespaceNetwork: "net", NamespaceIPC: "ipc", NamespaceUTS: "uts"} {
		join[ns] = fmt.Sprintf("/proc/%d/ns/%s", infraPid, file)
	}
	out := outFile(t, "out")
	b := e.bundle(t, "app", ContainerConfig{
		Args:           []string{"sh", "-c", "hostname; readlink /proc/self/ns/net; readlink /proc/self/ns/ipc; readlink /proc/self/ns/uts"},
		JoinNamespaces: join,
	})
	pid, err := e.rt.Create(ctx, "app", b, IO{Stdout: out})
	if err != nil {
		t.Fatalf("create app: %v", err)
	}
	if err := e.rt.Start(ctx, "app"); err != nil {
		t.Fatalf("start app: %v", err)
	}
	if code := waitPid(t, pid, 10*time.Second); code != 0 {
		t.Fatalf("app exit code %d, output %q", code, readFile(t, out))
	}
	if err := e.rt.Delete(ctx, "app", false); err != nil {
		t.Fatalf("delete app: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, out)), "\n")
	if len(lines) != 4 || lines[0] != "mypod" {
		t.Fatalf("app output %q: want hostname mypod and three namespace links", lines)
	}
	for i, file := range []string{"net", "ipc", "uts"} {
		want, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", infraPid, file))
		if err != nil {
			t.Fatal(err)
		}
		if lines[i+1] != want {
			t.Errorf("app %s namespace = %s, infra's = %s", file, lines[i+1], want)
		}
	}
}

func TestStateOfAnUnknownContainerIsNotFound(t *testing.T) {
	e := newTestEnv(t)
	_, err := e.rt.State(context.Background(), "does-not-exist")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

func TestCheckAvailable(t *testing.T) {
	ctx := context.Background()
	missing := &Runtime{Binary: "/nonexistent/runc-missing"}
	err := missing.CheckAvailable(ctx)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "runc-missing") {
		t.Fatalf("missing binary: err = %v, want ErrUnavailable naming the binary", err)
	}
	broken := &Runtime{Binary: "false"}
	if err := broken.CheckAvailable(ctx); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("binary whose --version fails: err = %v, want ErrUnavailable", err)
	}
	if _, err := exec.LookPath(DefaultBinary); err == nil {
		if err := (&Runtime{}).CheckAvailable(ctx); err != nil {
			t.Fatalf("runc installed but CheckAvailable says %v", err)
		}
		v, err := (&Runtime{}).Version(ctx)
		if err != nil || !strings.Contains(v, "runc") {
			t.Fatalf("version = %q, %v", v, err)
		}
	}
}

// TestCheckAvailableCachedRunsTheBinaryOnceUntilItChanges counts the runs of a fake runtime
// (a script that appends to a file): a second check with the same stamp does not run it; a
// changed binary is run again; a binary that disappeared is reported whatever the stamp says.
func TestCheckAvailableCachedRunsTheBinaryOnceUntilItChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	bin, runs, stamp := filepath.Join(dir, "fake-runc"), filepath.Join(dir, "runs"), filepath.Join(dir, "stamp")
	write := func(version string) {
		script := "#!/bin/sh\necho run >> " + runs + "\necho 'fake-runc version " + version + "'\n"
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		b, _ := os.ReadFile(runs)
		return strings.Count(string(b), "run\n")
	}
	write("1")
	rt := &Runtime{Binary: bin}
	for i := 0; i < 3; i++ {
		if err := rt.CheckAvailableCached(ctx, stamp); err != nil {
			t.Fatalf("check %d: %v", i, err)
		}
	}
	if n := count(); n != 1 {
		t.Errorf("three checks with one stamp ran the binary %d times, want 1", n)
	}
	time.Sleep(10 * time.Millisecond) // a distinct modification time even on coarse clocks
	write("2.0")
	if err := rt.CheckAvailableCached(ctx, stamp); err != nil || count() != 2 {
		t.Errorf("after the binary changed: err %v, %d runs, want it run again (2)", err, count())
	}
	if err := rt.CheckAvailable(ctx); err != nil || count() != 3 {
		t.Errorf("CheckAvailable without a stamp: err %v, %d runs, want it run (3)", err, count())
	}
	os.Remove(bin)
	if err := rt.CheckAvailableCached(ctx, stamp); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a removed binary with a stamp left: err = %v, want ErrUnavailable", err)
	}
	write("3")
	os.WriteFile(bin, []byte("#!/bin/sh\nexit 1\n"), 0o755)
	if err := rt.CheckAvailableCached(ctx, stamp); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a binary replaced by a broken one: err = %v, want ErrUnavailable", err)
	}
}

// TestListSurvivesContainersDeletedWhileListing lists a root whose entries come and go, as
// they do when other pods sharing the root are removed: runc fails a listing whose entry
// vanished between reading the root and its stat of the entry, and List must not (rm of one
// pod failed so while another was removed).
func TestListSurvivesContainersDeletedWhileListing(t *testing.T) {
	e := newTestEnv(t)
	if err := os.MkdirAll(e.rt.Root, 0o700); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Directories without a state file: runc skips them as unloadable, so only their
		// disappearing can fail a listing. One comes and one goes each millisecond, a removal
		// rate far above a host's but like the shell loop that made 6 of 300 `runc list`
		// calls fail.
		for i := 0; ; i++ {
			time.Sleep(time.Millisecond)
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Mkdir(filepath.Join(e.rt.Root, fmt.Sprintf("gone-%d", i%20)), 0o700)
			_ = os.Remove(filepath.Join(e.rt.Root, fmt.Sprintf("gone-%d", (i+10)%20)))
		}
	}()
	defer func() { close(stop); <-done }()
	for i := range 300 {
		if _, err := e.rt.List(context.Background()); err != nil {
			t.Fatalf("listing %d: %v", i, err)
		}
	}
}

// TestExecLeavesNothingInTheHostsTempDirectory runs an exec and looks, while it runs, where its
// process and pid files are: in the container's bundle, which removing the container or its
// pod removes, and never in the host's temp directory, where a caller killed during the exec
// (a supervisor lost mid-probe) would leave them for good.
func TestExecLeavesNothingInTheHostsTempDirectory(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	e.runningContainer(t, "tmp", ContainerConfig{})
	st, err := e.rt.State(ctx, "tmp")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	inBundle := func() []string {
		m, _ := filepath.Glob(filepath.Join(st.Bundle, ".podspec-exec-*"))
		return m
	}
	res := make(chan error, 1)
	go func() {
		_, err := e.rt.Exec(ctx, "tmp", ExecProcess{Args: []string{"sleep", "2"}})
		res <- err
	}()
	waitFor(t, func() bool { return len(inBundle()) == 1 })
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		names := make([]string, len(ents))
		for i, ent := range ents {
			names[i] = ent.Name()
		}
		t.Errorf("the exec wrote %v into the host's temp directory", names)
	}
	if err := <-res; err != nil {
		t.Fatalf("exec: %v", err)
	}
	if m := inBundle(); len(m) != 0 {
		t.Errorf("the exec left %v in the bundle", m)
	}
}
