package main

import (
	"bufio"
	"context"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"

	"podspec.dev/podspec/bench/internal/host"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/image"
	"podspec.dev/podspec/reference/oci"
	"podspec.dev/podspec/reference/sandbox"
)

// heldFloorUID names the held floor's sandbox, and the cgroup parent (/podspec/UID) of the
// -parts floor with podspec's cgroup layout.
const heldFloorUID = "bench-held-floor"

// heldParts say which of the held floor's steps a floor takes: the hold by the createRuntime
// hook, joining the pod's namespaces, podspec's runc flags and log file. The held floor takes
// all three; -parts adds floors that take one each, to tell their costs apart, and floors that
// also put each container's cgroup at an explicit path (cgroup, a format with %[1]s the pod's
// UID and %[2]s the container's ID: podspec's own layout /podspec/UID/ID, and others beside it
// to tell the path's depth from its parent; the held floor leaves runc's default, a cgroup of
// each container's own, which is all RES-002 needs).
type heldParts struct {
	hook, join, flags bool
	cgroup            string
}

// cgroupPath is the container's explicit cgroup under parts, or "" for runc's default.
func (parts heldParts) cgroupPath(id string) string {
	if parts.cgroup == "" {
		return ""
	}
	return fmt.Sprintf(parts.cgroup, heldFloorUID, id)
}

// podspecCgroup is podspec's layout (backend.CgroupParent(UID) + "/" + ID) as a heldParts.cgroup.
var podspecCgroup = backend.CgroupParent("%[1]s") + "/%[2]s"

// allParts is the held floor.
var allParts = heldParts{hook: true, join: true, flags: true}

// floorTimes are the moments of one floor start, measured from the first `runc run`.
type floorTimes struct {
	firstPID, lastPID time.Duration // the createRuntime hooks reported their pids (held floor)
	returned          time.Duration // the last `runc run` returned
	running           time.Duration // the last program runs (its process no longer runc's init)
}

// heldFloorOnce starts the three containers doing what podspec's semantics need of runc and
// nothing of podspec's own: the bundles join a pod sandbox's pinned network, IPC and UTS
// namespaces (SEC-008), carry backend.HeldHook as createRuntime hook, which holds the instance
// between its creation and its start and reports its pid (ContainerCreated, with the pid,
// before the program runs), and leave each container the cgroup of its own that runc gives it
// by default (RES-002); runc gets podspec's command line (`--log FILE --log-format json run
// --detach --no-subreaper`) and appends the output to a log file (the logs verb); each hold is
// released the moment its pid arrives — where podspec first commits ContainerCreated. Then, as
// podspec does, the invocation's exit is awaited and the program seen running. Bundles and
// root filesystems are prepared beforehand, as for the plain floor. parts leaves steps out (or
// adds podspec's cgroup layout) for -parts. The containers are then stopped (SIGTERM to the
// pid once its shell traps it, waited for as the subreaper) and deleted; the stop is not
// reported.
func heldFloorOnce(ctx context.Context, work string, imgs *image.Store, img *ocilayout.Image, sb *sandbox.Sandbox, parts heldParts, i int) (floorTimes, error) {
	runcRoot := filepath.Join(work, "floor-runc")
	var bundles, ids []string
	var cleanups []func() error
	defer func() {
		for _, c := range cleanups {
			c()
		}
	}()
	for _, c := range containers {
		id := fmt.Sprintf("held-%d-%t%t%t%08x-%s", i, parts.hook, parts.join, parts.flags, crc32.ChecksumIEEE([]byte(parts.cgroup)), c)
		bundle := filepath.Join(work, "floor", id)
		if err := os.MkdirAll(bundle, 0o700); err != nil {
			return floorTimes{}, err
		}
		cleanup, err := imgs.NewRootfs(ctx, img, filepath.Join(bundle, "rootfs"))
		if err != nil {
			return floorTimes{}, err
		}
		cleanups = append(cleanups, cleanup)
		cfg := oci.ContainerConfig{
			Rootfs:      filepath.Join(bundle, "rootfs"),
			Args:        []string{"sh", "-c", command},
			Env:         img.Env,
			Cwd:         "/",
			Annotations: map[string]string{"dev.podspec.pod": "bench", "dev.podspec.pod-uid": heldFloorUID, "dev.podspec.container": c},
		}
		cfg.CgroupsPath = parts.cgroupPath(id)
		if parts.join {
			cfg.JoinNamespaces = sb.NamespacePaths()
		}
		if parts.hook {
			cfg.CreateRuntime = []specs.Hook{backend.HeldHook(bundle)}
			for _, f := range []string{backend.CreatedFIFO, backend.StartFIFO} {
				if err := unix.Mkfifo(filepath.Join(bundle, f), 0o600); err != nil {
					return floorTimes{}, fmt.Errorf("held floor: %w", err)
				}
			}
		}
		if err := oci.WriteBundle(bundle, cfg); err != nil {
			return floorTimes{}, err
		}
		bundles, ids = append(bundles, bundle), append(ids, id)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return floorTimes{}, err
	}
	defer devnull.Close()
	pids := make([]int, len(ids))
	errs := make([]error, len(ids))
	reported, returned, running := make([]time.Duration, len(ids)), make([]time.Duration, len(ids)), make([]time.Duration, len(ids))
	t0 := time.Now()
	var wg sync.WaitGroup
	for k := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pids[k], reported[k], returned[k], running[k], errs[k] = runHeld(runcRoot, bundles[k], ids[k], parts, devnull, t0)
		}()
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			for j := range ids {
				exec.Command("runc", "--root", runcRoot, "delete", "--force", ids[j]).Run()
			}
			return floorTimes{}, fmt.Errorf("held floor %s: %w", ids[k], err)
		}
	}
	ft := floorTimes{firstPID: slices.Min(reported), lastPID: slices.Max(reported), returned: slices.Max(returned), running: slices.Max(running)}
	for _, pid := range pids {
		waitTrapped(pid)
	}
	for k := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unix.Kill(pids[k], syscall.SIGTERM)
			var ws unix.WaitStatus
			unix.Wait4(pids[k], &ws, 0, nil)
			exec.Command("runc", "--root", runcRoot, "delete", "--force", ids[k]).Run()
			if p := parts.cgroupPath(ids[k]); p != "" {
				oci.RemoveCgroup(p)
			}
		}()
	}
	wg.Wait()
	if p := parts.cgroupPath(ids[0]); p != "" && parts.cgroup != podspecCgroup && filepath.Dir(p) != "/" {
		oci.RemoveCgroup(filepath.Dir(p)) // a parent of this floor's own (podspec's is the sandbox's)
	}
	return ft, nil
}

// runHeld runs one held container: `runc run` with podspec's flags, the pid read from the
// created FIFO, "go" written to the start FIFO at once, the invocation's exit awaited, then the
// program seen running. It returns the pid and when each happened after t0. Without the hook
// the pid comes from --pid-file once runc returned; without podspec's flags runc's output
// goes to /dev/null and it gets no --log.
func runHeld(runcRoot, bundle, id string, parts heldParts, devnull *os.File, t0 time.Time) (pid int, reported, returned, running time.Duration, err error) {
	args := []string{"--root", runcRoot}
	out := devnull
	if parts.flags {
		logf, err := os.OpenFile(filepath.Join(bundle, "container.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		defer logf.Close()
		out = logf
		args = append(args, "--log", filepath.Join(bundle, "runc.log"), "--log-format", "json", "run", "--detach", "--no-subreaper")
	} else {
		args = append(args, "run", "--detach")
	}
	pidFile := filepath.Join(bundle, "pid")
	if !parts.hook {
		args = append(args, "--pid-file", pidFile)
	}
	cmd := exec.Command("runc", append(args, "--bundle", bundle, id)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, out, out
	if !parts.hook {
		if err := cmd.Run(); err != nil {
			return 0, 0, 0, 0, fmt.Errorf("runc run: %v", err)
		}
		returned = time.Since(t0)
		b, err := os.ReadFile(pidFile)
		if err == nil {
			pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if err != nil {
			return 0, 0, 0, 0, err
		}
		host.WaitExecuted(pid, 2*time.Second)
		return pid, returned, returned, time.Since(t0), nil
	}
	// Read-write opens of a FIFO never block (as in backend.createHeld).
	cf, err := os.OpenFile(filepath.Join(bundle, backend.CreatedFIFO), os.O_RDWR, 0)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	defer cf.Close()
	sf, err := os.OpenFile(filepath.Join(bundle, backend.StartFIFO), os.O_RDWR, 0)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	defer sf.Close()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(cf).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		reported = time.Since(t0)
		if pid, err = strconv.Atoi(strings.TrimSpace(s)); err != nil {
			sf.Close()
			<-done
			return 0, 0, 0, 0, fmt.Errorf("the hook reported %q", s)
		}
	case err := <-done:
		cf.Close()
		return 0, 0, 0, 0, fmt.Errorf("runc run ended before its hook reported a pid: %v", err)
	}
	if _, err := sf.WriteString("go\n"); err != nil {
		<-done
		return 0, 0, 0, 0, err
	}
	if err := <-done; err != nil {
		b, _ := os.ReadFile(filepath.Join(bundle, "runc.log"))
		return 0, 0, 0, 0, fmt.Errorf("runc run: %v: %s", err, b)
	}
	returned = time.Since(t0)
	host.WaitExecuted(pid, 2*time.Second)
	return pid, reported, returned, time.Since(t0), nil
}
