package oci

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"
)

// noInotifyEnv marks the child process in which TestExecWithoutInotify runs its execs.
const noInotifyEnv = "PODSPEC_TEST_NO_INOTIFY"

// TestExecWithoutInotify: where the kernel gives no inotify instance (the user's
// fs.inotify.max_user_instances reached: at scale every supervisor's probes exec at once), Exec
// still runs the process, calls Begun once the process has begun, and kills the tree at its
// timeout. The limit is shared by every process of the user on the host, so the test does not
// exhaust it: it runs itself again in a child process whose inotify_init1 the kernel answers
// with EMFILE, as it does at the limit (a seccomp filter of that process and what it starts,
// gone with it).
func TestExecWithoutInotify(t *testing.T) {
	if os.Getenv(noInotifyEnv) == "" {
		needRunc(t)
		if _, ok := auditArch[runtime.GOARCH]; !ok {
			t.Skipf("no seccomp architecture known for %s", runtime.GOARCH)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestExecWithoutInotify$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), noInotifyEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestExecWithoutInotify") {
			t.Fatalf("the test without inotify: %v\n%s", err, out)
		}
		return
	}

	e := newTestEnv(t)
	ctx := context.Background()
	e.runningContainer(t, "noinotify", ContainerConfig{})
	denyInotify(t)
	if w, err := fsnotify.NewWatcher(); !errors.Is(err, unix.EMFILE) {
		if w != nil {
			w.Close()
		}
		t.Fatalf("the premise: creating an inotify instance gave %v, want EMFILE", err)
	}

	checkBegunOnce(t, e.rt, "noinotify")

	start := time.Now()
	_, err := e.rt.Exec(ctx, "noinotify", ExecProcess{Args: []string{"sh", "-c", "sleep 3117 & sleep 3118"}, Timeout: 500 * time.Millisecond})
	if !errors.Is(err, ErrExecTimeout) {
		t.Fatalf("err = %v, want ErrExecTimeout (after %s)", err, time.Since(start))
	}
	waitFor(t, func() bool {
		ps, _ := exec.Command("ps", "-eo", "args").Output()
		return !strings.Contains(string(ps), "sleep 3117") && !strings.Contains(string(ps), "sleep 3118")
	})
}

// auditArch is the seccomp architecture of each GOARCH the test knows.
var auditArch = map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}

// denyInotify makes the kernel answer inotify_init1 with EMFILE in this process (every thread)
// and in every process it starts from now on: a seccomp filter, which the process cannot lift.
func denyInotify(t *testing.T) {
	t.Helper()
	ret := func(k uint32) unix.SockFilter { return unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k} }
	load := func(off uint32) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off}
	}
	// struct seccomp_data: nr at offset 0, arch at 4.
	prog := []unix.SockFilter{
		load(4),
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: auditArch[runtime.GOARCH], Jt: 1},
		ret(unix.SECCOMP_RET_ALLOW),
		load(0),
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_INOTIFY_INIT1, Jf: 1},
		ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EMFILE)),
		ret(unix.SECCOMP_RET_ALLOW),
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		t.Fatalf("seccomp filter: %v", errno)
	}
}
