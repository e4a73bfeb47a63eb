package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"podspec.dev/podspec/conformance/probe"
)

// envRunAsProbe makes the test binary behave as podspec-probe, so the tests drive real processes.
const envRunAsProbe = "PODSPEC_PROBE_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunAsProbe) == "1" {
		os.Exit(dispatch(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// startProbe starts the probe with args, reporting to a fresh harness socket.
func startProbe(t *testing.T, args ...string) (*exec.Cmd, *probe.Server, string) {
	t.Helper()
	dir := t.TempDir()
	srv, err := probe.Listen(filepath.Join(dir, "events.sock"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envRunAsProbe+"=1", probe.EnvSocket+"="+srv.Path(), probe.EnvName+"=c1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, srv, dir
}

// waitStatus waits for cmd and returns its wait status.
func waitStatus(t *testing.T, cmd *exec.Cmd) syscall.WaitStatus {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("probe did not end")
	}
	return cmd.ProcessState.Sys().(syscall.WaitStatus)
}

// types lists the event types in arrival order, with the signal where there is one.
func types(evs []probe.Event) string {
	var s []string
	for _, ev := range evs {
		t := ev.Type
		if ev.Signal != "" {
			t += ":" + ev.Signal
		}
		if ev.Action != "" {
			t += ":" + ev.Action
		}
		s = append(s, t)
	}
	return strings.Join(s, " ")
}

func waitEvents(t *testing.T, srv *probe.Server, n int) []probe.Event {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if evs := srv.Events(); len(evs) >= n {
			return evs
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("fewer than %d events: %s", n, types(srv.Events()))
	return nil
}

func TestWorkloadExitsWithItsCodeAfterTheDelay(t *testing.T) {
	start := time.Now()
	cmd, srv, _ := startProbe(t, "run", "-exit", "3", "-after", "200ms")
	ws := waitStatus(t, cmd)
	if ws.ExitStatus() != 3 {
		t.Fatalf("exit status %d, want 3", ws.ExitStatus())
	}
	if el := time.Since(start); el < 200*time.Millisecond {
		t.Fatalf("exited after %v, before the 200ms delay", el)
	}
	evs := srv.Events()
	if got := types(evs); got != "start exit" {
		t.Fatalf("events %q, want start then exit", got)
	}
	if evs[1].ExitCode == nil || *evs[1].ExitCode != 3 || evs[0].Container != "c1" || evs[0].Role != probe.RoleWorkload {
		t.Fatalf("events %+v", evs)
	}
}

func TestWorkloadSignalActions(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		send       []syscall.Signal
		wantEvents string
		wantCode   int
		wantKilled bool
	}{
		{
			name:       "SIGTERM ends a looping workload with 0 by default",
			args:       []string{"-loop"},
			send:       []syscall.Signal{syscall.SIGTERM},
			wantEvents: "start signal:SIGTERM:exit exit",
		},
		{
			name:       "a trapped signal lingers and then exits with the given code",
			args:       []string{"-loop", "-on", "SIGUSR1=exit:100ms:7"},
			send:       []syscall.Signal{syscall.SIGUSR1},
			wantEvents: "start signal:SIGUSR1:exit exit",
			wantCode:   7,
		},
		{
			name:       "an ignored SIGTERM is reported and the workload keeps running until killed",
			args:       []string{"-loop", "-on", "TERM=ignore"},
			send:       []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL},
			wantEvents: "start signal:SIGTERM:ignore",
			wantKilled: true,
		},
		{
			name:       "signals without an action are reported and ignored",
			args:       []string{"-loop"},
			send:       []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM},
			wantEvents: "start signal:SIGHUP:ignore signal:SIGTERM:exit exit",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, srv, _ := startProbe(t, append([]string{"run"}, tt.args...)...)
			waitEvents(t, srv, 1)
			for i, s := range tt.send {
				if err := cmd.Process.Signal(s); err != nil {
					t.Fatal(err)
				}
				if s != syscall.SIGKILL {
					waitEvents(t, srv, i+2)
				}
			}
			ws := waitStatus(t, cmd)
			if tt.wantKilled {
				if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
					t.Fatalf("status %v, want killed by SIGKILL", ws)
				}
			} else if ws.ExitStatus() != tt.wantCode {
				t.Fatalf("exit status %d, want %d", ws.ExitStatus(), tt.wantCode)
			}
			if got := types(srv.Events()); got != tt.wantEvents {
				t.Fatalf("events %q, want %q", got, tt.wantEvents)
			}
		})
	}
}

func TestWorkloadFollowsItsPerInstancePlanAcrossRestarts(t *testing.T) {
	counter := filepath.Join(t.TempDir(), "count")
	for i, want := range []int{1, 0, 0} {
		cmd, srv, _ := startProbe(t, "run", "-counter", counter, "-codes", "1,0")
		ws := waitStatus(t, cmd)
		if ws.ExitStatus() != want {
			t.Fatalf("instance %d exited %d, want %d", i+1, ws.ExitStatus(), want)
		}
		if evs := srv.Events(); evs[0].Instance != i+1 {
			t.Fatalf("instance %d reported instance %d", i+1, evs[0].Instance)
		}
	}
	dir := filepath.Dir(counter)
	cmd, srv, _ := startProbe(t, "run", "-counter", counter, "-codes", "1,0,loop", "-touch", filepath.Join(dir, "started.{instance}"))
	waitEvents(t, srv, 1)
	// The file is created just after the start report: wait for it before the signal, which
	// would otherwise race with it.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "started.4")); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("{instance} not substituted in -touch: %v", err)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, cmd)
	if got := types(srv.Events()); got != "start signal:SIGTERM:exit exit" {
		t.Fatalf("the looping fourth instance reported %q", got)
	}
}

func TestWorkloadWaitsForItsRendezvousBeforeTheDelayStarts(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "peer-started")
	cmd, srv, _ := startProbe(t, "run", "-exit", "4", "-after", "10ms", "-wait-for", marker)
	waitEvents(t, srv, 1)
	time.Sleep(200 * time.Millisecond)
	if got := types(srv.Events()); got != "start" {
		t.Fatalf("the workload did not wait for its rendezvous: %q", got)
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if ws := waitStatus(t, cmd); ws.ExitStatus() != 4 {
		t.Fatalf("exit %d, want 4", ws.ExitStatus())
	}
}

func TestWorkloadDiesFromSIGSEGVWhenAskedToCrash(t *testing.T) {
	cmd, srv, _ := startProbe(t, "run", "-loop", "-crash-after", "50ms")
	ws := waitStatus(t, cmd)
	if !ws.Signaled() || ws.Signal() != syscall.SIGSEGV {
		t.Fatalf("status %v, want killed by SIGSEGV", ws)
	}
	if got := types(srv.Events()); got != "start crash:SIGSEGV" {
		t.Fatalf("events %q", got)
	}
}

func TestWorkloadPreventsACoreDumpWhenAsked(t *testing.T) {
	cmd, srv, _ := startProbe(t, "run", "-loop", "-crash-after", "50ms", "-crash-no-core")
	ws := waitStatus(t, cmd)
	if !ws.Signaled() || ws.Signal() != syscall.SIGSEGV || ws.CoreDump() {
		t.Fatalf("status %v (core dumped %v), want killed by SIGSEGV without a core", ws, ws.CoreDump())
	}
	evs := srv.Events()
	if len(evs) != 2 || evs[1].Core == nil || evs[1].Core.Dumpable {
		t.Fatalf("events %+v: want a crash event saying the process is not dumpable", evs)
	}
}

func TestWorkloadAllowsACoreDumpIntoItsDirectoryWhenAsked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cores")
	cmd, srv, _ := startProbe(t, "run", "-loop", "-crash-after", "50ms", "-crash-core", dir)
	ws := waitStatus(t, cmd)
	if !ws.Signaled() || ws.Signal() != syscall.SIGSEGV {
		t.Fatalf("status %v, want killed by SIGSEGV", ws)
	}
	evs := srv.Events()
	if len(evs) != 2 || evs[1].Core == nil {
		t.Fatalf("events %+v: want a crash event with the core setup", evs)
	}
	core := evs[1].Core
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &rl); err != nil {
		t.Fatal(err)
	}
	if !core.Dumpable || core.Limit != rl.Max || core.Dir != dir || len(core.Errors) > 0 {
		t.Fatalf("core setup %+v, want dumpable, limit %d, directory %s", core, rl.Max, dir)
	}
	// Where the host's core_pattern names a file in the working directory, the wait status and
	// the directory must agree.
	if p := strings.TrimSpace(core.Pattern); p != "" && !strings.HasPrefix(p, "|") && !strings.Contains(p, "/") {
		entries, _ := os.ReadDir(dir)
		if ws.CoreDump() != (len(entries) > 0) {
			t.Fatalf("core dumped %v, but %s holds %d entries (core_pattern %q)", ws.CoreDump(), dir, len(entries), p)
		}
	}
}

func TestWorkloadReportsWhatItSees(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	marker := filepath.Join(dir, "ready")
	cmd, srv, _ := startProbe(t, "run", "-report", "-read", in, "-read", filepath.Join(dir, "missing"), "-list", dir,
		"-write", out+"=written", "-touch", marker, "-after", "300ms", "-stdout", "hi")
	waitStatus(t, cmd)
	evs := srv.Events()
	if got := types(evs); got != "start report exit" {
		t.Fatalf("events %q", got)
	}
	rep := evs[1].Report
	if rep == nil || rep.PID != cmd.Process.Pid || rep.Env[probe.EnvName] != "c1" || rep.Files[in] != "hello" {
		t.Fatalf("report %+v", rep)
	}
	if got := rep.Dirs[dir]; len(got) != 1 || got[0] != "in" {
		t.Errorf("-list %s reported %q, want the one file present at start", dir, got)
	}
	if _, ok := rep.FileErrors[filepath.Join(dir, "missing")]; !ok {
		t.Errorf("missing file not reported as an error: %+v", rep.FileErrors)
	}
	if len(rep.Mounts) == 0 {
		t.Errorf("no mounts reported")
	}
	if rep.Namespaces["net"] == "" || rep.CapBnd == "" || len(rep.Interfaces) == 0 || rep.Masked["/proc/kcore"] == "" {
		t.Errorf("namespaces, capabilities, interfaces or masks missing: %+v", rep)
	}
	if data, err := os.ReadFile(out); err != nil || string(data) != "written" {
		t.Errorf("-write produced %q, %v", data, err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("-touch marker missing: %v", err)
	}
}

func TestHandlersReportStartAndEndWithTheirExitCode(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "hooked")
	cmd, srv, _ := startProbe(t, "hook", "-handler", "preStop", "-sleep", "50ms", "-exit", "4", "-touch", marker)
	ws := waitStatus(t, cmd)
	if ws.ExitStatus() != 4 {
		t.Fatalf("exit %d, want 4", ws.ExitStatus())
	}
	evs := srv.Events()
	if got := types(evs); got != "handler-start handler-end" {
		t.Fatalf("events %q", got)
	}
	if evs[0].Role != probe.RoleHook || evs[0].Handler != "preStop" || *evs[1].ExitCode != 4 {
		t.Fatalf("events %+v", evs)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("marker: %v", err)
	}
	cmd, srv, _ = startProbe(t, "notifier", "-handler", "reload")
	waitStatus(t, cmd)
	if evs := srv.Events(); len(evs) != 2 || evs[0].Role != probe.RoleNotifier || evs[0].Handler != "reload" {
		t.Fatalf("notifier events %+v", evs)
	}
}

// TestHandlerHoldsItsLockUntilItExits: -lock FILE is held from before the start report until
// the process is gone, and only its exit frees it (the harness's Pod.Gone waits on that).
func TestHandlerHoldsItsLockUntilItExits(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "h.lock")
	cmd, srv, _ := startProbe(t, "notifier", "-handler", "hold", "-sleep", "300ms", "-lock", lock)
	deadline := time.Now().Add(10 * time.Second)
	for types(srv.Events()) == "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	tryLock := func() error {
		f, err := os.Open(lock)
		if err != nil {
			return err
		}
		defer f.Close()
		return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err := tryLock(); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatalf("after the start report the lock is free (%v), want held", err)
	}
	waitStatus(t, cmd)
	if err := tryLock(); err != nil {
		t.Fatalf("after the exit: %v, want the lock free", err)
	}
}

// TestHandlerStartsAChainOfDescendants: -descendants 2 starts a child in a session of its own
// and a grandchild under it; each reports its start and, after -sleep, its end under the
// handler's name with its depth.
func TestHandlerStartsAChainOfDescendants(t *testing.T) {
	cmd, srv, _ := startProbe(t, "notifier", "-handler", "slow", "-sleep", "1s", "-descendants", "2")
	started := func(evs []probe.Event) map[string]int {
		pids := map[string]int{}
		for _, ev := range evs {
			if ev.Type == probe.TypeHandlerStart {
				pids[ev.Handler] = ev.PID
			}
		}
		return pids
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Wait(ctx, func(evs []probe.Event) bool { return len(started(evs)) == 3 }); err != nil {
		t.Fatalf("three handler starts: %v (events %+v)", err, srv.Events())
	}
	pids := started(srv.Events())
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	// /proc/PID/stat after the command: state ppid pgrp session.
	stat := func(pid int) []string {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			t.Fatalf("stat of %d: %v", pid, err)
		}
		s := string(b)
		return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	}
	child, grandchild := stat(pids["slow.1"]), stat(pids["slow.2"])
	if child[1] != strconv.Itoa(cmd.Process.Pid) || child[3] != strconv.Itoa(pids["slow.1"]) {
		t.Errorf("slow.1 (pid %d): ppid %s session %s, want the handler's child (%d) leading a session of its own", pids["slow.1"], child[1], child[3], cmd.Process.Pid)
	}
	if grandchild[1] != strconv.Itoa(pids["slow.1"]) || grandchild[3] != strconv.Itoa(pids["slow.1"]) {
		t.Errorf("slow.2: ppid %s session %s, want slow.1's child in its session (%d)", grandchild[1], grandchild[3], pids["slow.1"])
	}
	if err := srv.Wait(ctx, func(evs []probe.Event) bool {
		n := 0
		for _, ev := range evs {
			if ev.Type == probe.TypeHandlerEnd {
				n++
			}
		}
		return n == 3
	}); err != nil {
		t.Fatalf("three handler ends: %v (events %+v)", err, srv.Events())
	}
	waitStatus(t, cmd)
}

func TestCheckOutcomes(t *testing.T) {
	dir := t.TempDir()
	present := filepath.Join(dir, "present")
	if err := os.WriteFile(present, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	count := filepath.Join(dir, "count")
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"a present marker succeeds", []string{"-marker", present}, 0},
		{"a missing marker fails", []string{"-marker", filepath.Join(dir, "absent")}, 1},
		{"the first of two planned failures fails", []string{"-count-file", count, "-fail-times", "2"}, 1},
		{"the second of two planned failures fails", []string{"-count-file", count, "-fail-times", "2"}, 1},
		{"the third invocation succeeds", []string{"-count-file", count, "-fail-times", "2"}, 0},
		{"a fixed exit code is returned", []string{"-exit", "5"}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, srv, _ := startProbe(t, append([]string{"check", "-handler", "readiness"}, tt.args...)...)
			if ws := waitStatus(t, cmd); ws.ExitStatus() != tt.want {
				t.Fatalf("exit %d, want %d", ws.ExitStatus(), tt.want)
			}
			evs := srv.Events()
			wantResult := "success"
			if tt.want != 0 {
				wantResult = "failure"
			}
			if len(evs) != 1 || evs[0].Type != probe.TypeCheck || evs[0].Result != wantResult || evs[0].Handler != "readiness" {
				t.Fatalf("events %+v", evs)
			}
		})
	}
}

func TestParseOn(t *testing.T) {
	tests := []struct {
		in      string
		sig     syscall.Signal
		act     signalAction
		wantErr bool
	}{
		{in: "SIGTERM=ignore", sig: syscall.SIGTERM},
		{in: "TERM=exit", sig: syscall.SIGTERM, act: signalAction{exit: true}},
		{in: "SIGUSR2=exit:2s:9", sig: syscall.SIGUSR2, act: signalAction{exit: true, linger: 2 * time.Second, code: 9}},
		{in: "SIGHUP=exit::3", sig: syscall.SIGHUP, act: signalAction{exit: true, code: 3}},
		{in: "SIGRTMIN+2=ignore", sig: syscall.Signal(36)},
		{in: "SIGKILL=ignore", wantErr: true},
		{in: "SIGNOPE=exit", wantErr: true},
		{in: "SIGTERM", wantErr: true},
		{in: "SIGTERM=dance", wantErr: true},
		{in: "SIGTERM=exit:soon", wantErr: true},
		{in: "SIGTERM=ignore:1s", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sig, act, err := parseOn(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("parseOn(%q) accepted", tt.in)
				}
				return
			}
			if err != nil || sig != tt.sig || act != tt.act {
				t.Fatalf("parseOn(%q) = %v, %+v, %v; want %v, %+v", tt.in, sig, act, err, tt.sig, tt.act)
			}
		})
	}
}

func TestParseWorkloadRejectsInconsistentFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-codes", "1,0"},
		{"-counter", "/x", "-codes", "1,often"},
		{"-write", "nopath"},
		{"-crash-core", "/cores", "-crash-no-core"},
		{"extra"},
	} {
		if _, err := parseWorkload(args); err == nil {
			t.Errorf("parseWorkload(%q) accepted", args)
		}
	}
}

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]int64{
		"max": -1, "-1": -1, "9223372036854771712": -1, "104857600": 104857600, "": 0, "x": 0,
	} {
		if got := parseLimit(in); got != want {
			t.Errorf("parseLimit(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestReadCgroupUnderstandsBothVersions(t *testing.T) {
	v2 := t.TempDir()
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(v2, "cgroup.controllers"), "cpu memory pids\n")
	write(filepath.Join(v2, "memory.max"), "67108864\n")
	write(filepath.Join(v2, "pids.max"), "max\n")
	write(filepath.Join(v2, "cpu.max"), "50000 100000\n")
	if got := readCgroup(v2); got != (probe.CgroupLimits{Version: 2, MemoryBytes: 64 << 20, Pids: -1, CPUQuotaMicros: 50000, CPUPeriodMicros: 100000}) {
		t.Errorf("v2: %+v", got)
	}
	v1 := t.TempDir()
	write(filepath.Join(v1, "memory", "memory.limit_in_bytes"), "9223372036854771712\n")
	write(filepath.Join(v1, "pids", "pids.max"), "20\n")
	write(filepath.Join(v1, "cpu", "cpu.cfs_quota_us"), "-1\n")
	write(filepath.Join(v1, "cpu", "cpu.cfs_period_us"), "100000\n")
	if got := readCgroup(v1); got != (probe.CgroupLimits{Version: 1, MemoryBytes: -1, Pids: 20, CPUQuotaMicros: -1, CPUPeriodMicros: 100000}) {
		t.Errorf("v1: %+v", got)
	}
	if got := readCgroup(t.TempDir()); got.Version != 0 {
		t.Errorf("empty dir: %+v", got)
	}
}

func TestReadStatusAndInterfaces(t *testing.T) {
	dir := t.TempDir()
	status := filepath.Join(dir, "status")
	if err := os.WriteFile(status, []byte("Name:\tx\nCapBnd:\t00000000a80425fb\nNoNewPrivs:\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if nnp, bnd := readStatus(status); !nnp || bnd != "00000000a80425fb" {
		t.Errorf("readStatus = %v, %q", nnp, bnd)
	}
	dev := filepath.Join(dir, "dev")
	content := "Inter-|   Receive\n face |bytes\n    lo: 0 0\n  eth0: 1 2\n"
	if err := os.WriteFile(dev, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readInterfaces(dev); len(got) != 2 || got[0] != "lo" || got[1] != "eth0" {
		t.Errorf("readInterfaces = %q", got)
	}
}

func TestMaskState(t *testing.T) {
	empty := t.TempDir()
	tests := map[string]string{os.DevNull: "null-device", empty: "empty", filepath.Join(empty, "nope"): "absent", "/proc/self/status": "visible"}
	for path, want := range tests {
		if got := maskState(path); got != want {
			t.Errorf("maskState(%s) = %q, want %q", path, got, want)
		}
	}
}

func TestWorkloadEatsMemoryAndChecksSleep(t *testing.T) {
	cmd, srv, _ := startProbe(t, "run", "-eat-bytes", "8388608", "-after", "300ms")
	if ws := waitStatus(t, cmd); ws.ExitStatus() != 0 {
		t.Fatalf("exit %d", ws.ExitStatus())
	}
	if got := types(srv.Events()); got != "start eat exit" {
		t.Fatalf("events %q", got)
	}
	start := time.Now()
	cmd, _, _ = startProbe(t, "check", "-sleep", "200ms", "-exit", "0")
	waitStatus(t, cmd)
	if el := time.Since(start); el < 200*time.Millisecond {
		t.Fatalf("check -sleep 200ms returned after %v", el)
	}
}

func TestWorkloadReportsAgainWhenATriggerFileAppears(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	first, second := filepath.Join(dir, "again-1"), filepath.Join(dir, "again-2")
	cmd, srv, _ := startProbe(t, "run", "-report", "-read", in, "-report-when", first, "-report-when", second, "-after", "1500ms")
	time.Sleep(300 * time.Millisecond)
	if err := os.WriteFile(in, []byte("after"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The second trigger alone reports nothing: the reports follow the order of the flags.
	if err := os.WriteFile(second, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if got := types(srv.Events()); got != "start report" {
		t.Fatalf("events before the first trigger %q, want start report", got)
	}
	if err := os.WriteFile(first, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, cmd)
	evs := srv.Events()
	if got := types(evs); got != "start report report report exit" {
		t.Fatalf("events %q", got)
	}
	for i, want := range map[int]string{1: "before", 2: "after", 3: "after"} {
		if rep := evs[i].Report; rep == nil || rep.PID != cmd.Process.Pid || rep.Files[in] != want {
			t.Errorf("report %d: %+v, want the same process reading %q", i, rep, want)
		}
	}
}

func TestWorkloadEatsInAChildAndReportsStats(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	mtime := time.Unix(1_600_000_000, 0)
	if err := os.Chtimes(fifo, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	// The child uses the memory and exits 0 (no limit here): the workload goes on to its -after.
	cmd, srv, _ := startProbe(t, "run", "-report", "-stat", fifo, "-eat-bytes", "8388608", "-eat-in-child", "-after", "300ms")
	if ws := waitStatus(t, cmd); ws.ExitStatus() != 0 {
		t.Fatalf("exit %d", ws.ExitStatus())
	}
	evs := srv.Events()
	if got := types(evs); got != "start report eat exit" {
		t.Fatalf("events %q", got)
	}
	st := evs[1].Report.Stats[fifo]
	if st.Mode != syscall.S_IFIFO|0o600 || st.UID != uint32(os.Getuid()) || st.Mtime != mtime.Unix() {
		t.Errorf("stat of the FIFO = %+v, want mode %o, uid %d, mtime %d", st, syscall.S_IFIFO|0o600, os.Getuid(), mtime.Unix())
	}
}

// TestFloodWritesNumberedLinesOfFloodLineBytes: the log-bound spec reads a kept log by these
// line numbers and lengths.
func TestFloodWritesNumberedLinesOfFloodLineBytes(t *testing.T) {
	for _, n := range []int64{3 * probe.FloodLine, 3*probe.FloodLine + 100} {
		var b strings.Builder
		if err := flood(&b, n); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if int64(len(out)) != n {
			t.Errorf("flood %d wrote %d bytes", n, len(out))
		}
		lines := strings.SplitAfter(out, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if want := int((n + probe.FloodLine - 1) / probe.FloodLine); len(lines) != want {
			t.Fatalf("flood %d wrote %d lines, want %d", n, len(lines), want)
		}
		for i, l := range lines {
			if !strings.HasPrefix(l, fmt.Sprintf("%08d ", i)) || !strings.HasSuffix(l, "\n") {
				t.Errorf("flood %d: line %d is %.20q…", n, i, l)
			}
			if i < len(lines)-1 && len(l) != probe.FloodLine {
				t.Errorf("flood %d: line %d has %d bytes, want %d", n, i, len(l), probe.FloodLine)
			}
		}
	}
}

func TestFillWritesAFileOfTheGivenSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	const n = 100_000
	if err := fillWith(path, n); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != n {
		t.Errorf("size %d, want %d", fi.Size(), n)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Blocks*512 < n {
		t.Errorf("%d bytes allocated: the file is sparse", st.Blocks*512)
	}
	for _, bad := range []string{"/x", "/x=", "=5", "/x=-1", "/x=1k"} {
		if _, err := parseWorkload([]string{"-fill", bad}); err == nil {
			t.Errorf("-fill %q accepted", bad)
		}
	}
}
