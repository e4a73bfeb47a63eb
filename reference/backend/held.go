package backend

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"

	"podspec.dev/podspec/internal/flock"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/oci"
)

// An instance is created and started by one `run --detach` of the OCI runtime, held between
// the two by a createRuntime hook (part of the OCI runtime spec, so any runtime that runs hooks
// will do). The hook reports the container process's pid to the supervisor through the FIFO
// CreatedFIFO and waits on StartFIFO: "go" starts the process, the end of the file (the
// supervisor gave up, or died) makes the hook fail, and the runtime then destroys the
// container. The engine gets what `create` then `start` gave it — a pid before the process
// runs its program, so that ContainerCreated is recorded first and an update or a stop can
// still abandon the instance — for one runtime process per instance instead of two.
//
// CreatedFIFO and StartFIFO are those two FIFOs' names in the instance's bundle directory.
const (
	CreatedFIFO = "created.fifo"
	StartFIFO   = "start.fifo"
)

// heldHookScript is the createRuntime hook, run by /bin/sh with the bundle directory as $1.
// runc passes the container's state as JSON on stdin, without a trailing newline; its pid is
// the first "pid" member (ociVersion, id and status come before it, and neither the id nor the
// status can hold a quote). The start FIFO is opened before the pid is reported, so that the
// supervisor's "go" is never written to a FIFO nobody holds open.
const heldHookScript = `IFS= read -r state || [ -n "$state" ] || exit 1
pid=${state#*\"pid\":}
pid=${pid%%[!0-9]*}
[ -n "$pid" ] || exit 1
exec 3<"$1/` + StartFIFO + `" || exit 1
printf '%s\n' "$pid" >"$1/` + CreatedFIFO + `" || exit 1
IFS= read -r answer <&3 && [ "$answer" = go ]`

// heldHookTimeout bounds the hook (seconds): the engine answers within milliseconds of the pid
// (one state write), so only a stuck supervisor reaches it; the runtime then fails the run.
const heldHookTimeout = 120

// HeldHook is the createRuntime hook of an instance whose bundle is dir: it reports the
// container process's pid on dir/CreatedFIFO and waits for "go" on dir/StartFIFO. It is
// exported for bench/runtime, whose floor runs the same hold without the rest of podspec.
func HeldHook(dir string) specs.Hook {
	timeout := heldHookTimeout
	return specs.Hook{Path: "/bin/sh", Args: []string{"sh", "-c", heldHookScript, heldHookArg, dir}, Timeout: &timeout}
}

// held is an instance whose runtime invocation waits in its hook for StartInstance or
// DeleteInstance.
type held struct {
	start  *os.File     // the supervisor's end of StartFIFO (opened read-write: never blocks)
	done   <-chan error // the runtime invocation's result
	cancel func()       // ends the invocation's context once it returned
	dir    string
}

// createTimeout bounds one runtime invocation that creates and starts an instance, from the
// moment it has its creation slot (createSlot) until the runtime exits (a variable for tests).
var createTimeout = 2 * time.Minute

// createSlot waits for one of the host's HostCreateParallelism creation slots (a lock file
// under CreateSlots, shared by every supervisor of the runtime root: package internal/flock's
// Slot) and returns the function that frees it. Without CreateSlots, creations are unbounded.
func (b *Backend) createSlot(ctx context.Context) (func(), error) {
	if b.CreateSlots == "" {
		return func() {}, nil
	}
	n := b.HostCreateParallelism
	if n <= 0 {
		n = engine.DefaultCreateParallelism()
	}
	return flock.Slot(ctx, b.CreateSlots, n)
}

// heldInstances are the instances between CreateInstance and StartInstance or DeleteInstance.
type heldInstances struct {
	mu sync.Mutex
	m  map[string]*held
}

func (h *heldInstances) put(id string, x *held) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string]*held{}
	}
	h.m[id] = x
}

func (h *heldInstances) take(id string) *held {
	h.mu.Lock()
	defer h.mu.Unlock()
	x := h.m[id]
	delete(h.m, id)
	return x
}

// createHeld runs the instance's container up to its hook and returns the pid of its process.
// That process is the runtime invocation's child until the invocation exits, then this
// subreaper's (the runtime runs without a subreaper of its own); reaper.Watch follows it
// across the move.
//
// The runtime invocation is never cut off half-way by the caller's context (that would leave
// its "runc init" process behind, unknown to the runtime): it is bounded by a timeout of its
// own, and it runs on after createHeld returns, until release.
func (b *Backend) createHeld(ctx context.Context, id, bundle string, io oci.IO) (pid int, err error) {
	created, start := filepath.Join(bundle, CreatedFIFO), filepath.Join(bundle, StartFIFO)
	for _, p := range []string{created, start} {
		os.Remove(p)
		if err := unix.Mkfifo(p, 0o600); err != nil {
			return 0, fmt.Errorf("create %s: %w", id, err)
		}
	}
	// Read-write opens of a FIFO never block; holding the write side of StartFIFO is what
	// lets the hook open it, and closing it (or dying) is what ends the hook's wait.
	cf, err := os.OpenFile(created, os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("create %s: %w", id, err)
	}
	defer cf.Close()
	sf, err := os.OpenFile(start, os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("create %s: %w", id, err)
	}
	// At most HostCreateParallelism invocations create instances on the host at once, across
	// every supervisor of the runtime root. The wait for a slot is the caller's (its context
	// ends it) and not the invocation's: its timeout (createTimeout) starts once it has a slot.
	free, err := b.createSlot(ctx)
	if err != nil {
		sf.Close()
		return 0, fmt.Errorf("create %s: wait for a creation slot: %w", id, err)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
	defer func() {
		if err != nil {
			cancel()
		}
	}()
	ran := b.Runtime.RunDetached(ctx, id, bundle, io)
	done := make(chan error, 1)
	go func() {
		err := <-ran
		free() // the slot is held for as long as the invocation runs
		done <- err
	}()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(cf).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		pid, err = strconv.Atoi(strings.TrimSpace(s))
		if err != nil || pid <= 0 {
			sf.Close()
			<-done
			return 0, fmt.Errorf("create %s: the createRuntime hook reported %q, not a pid", id, s)
		}
	case err := <-done:
		sf.Close()
		cf.Close() // ends the reader
		if err == nil {
			err = fmt.Errorf("create %s: the OCI runtime started the container without running its createRuntime hook", id)
		}
		return 0, err
	}
	b.held.put(id, &held{start: sf, done: done, cancel: cancel, dir: bundle})
	return pid, nil
}

// release ends the hold of a held instance: go starts its process and waits until the runtime
// has started it; otherwise the hook fails and the runtime destroys the container. It reports
// the runtime's error, if any, and whether id was held at all.
func (b *Backend) release(id string, run bool) (bool, error) {
	x := b.held.take(id)
	if x == nil {
		return false, nil
	}
	defer func() {
		x.cancel()
		os.Remove(filepath.Join(x.dir, CreatedFIFO))
		os.Remove(filepath.Join(x.dir, StartFIFO))
	}()
	var err error
	if run {
		_, err = x.start.WriteString("go\n")
	}
	x.start.Close()
	if err != nil {
		<-x.done
		return true, fmt.Errorf("start %s: %w", id, err)
	}
	rerr := <-x.done // bounded by the invocation's own timeout
	if run {
		return true, rerr
	}
	return true, nil // an abandoned run fails by design
}

// heldHookArg is the argument that names the held hook in its command line (after sh -c
// SCRIPT), followed by the bundle directory: how endOrphanedHold finds a hook.
const heldHookArg = "podspec-created"

// orphanTimeout bounds how long endOrphanedHold waits for an orphaned runtime invocation to
// fail once its hook is killed (runsc takes seconds to destroy a sandbox) before it kills the
// invocation's process group. A variable so that a test can shorten it.
var orphanTimeout = 30 * time.Second

// endOrphanedHold ends the hold a lost supervisor left on bundle. A supervisor that died while
// the OCI runtime created an instance, before the hook opened StartFIFO, leaves the hook
// blocked in that open, for there is no writer any more, until heldHookTimeout (two minutes);
// the runtime invocation waits for the hook, and runsc's `delete --force` of the container waits
// for the invocation. So the hook is killed, whenever it appears, until the invocation has
// ended: the runtime then fails the run and destroys the container, whose program never ran.
// An invocation still there after orphanTimeout is killed with its process group. A bundle
// without StartFIFO was released (release removes the FIFOs) or never held: nothing to do.
func endOrphanedHold(bundle string) {
	abs, err := filepath.Abs(bundle)
	if err != nil {
		return
	}
	if _, err := os.Lstat(filepath.Join(abs, StartFIFO)); err != nil {
		return
	}
	deadline := time.Now().Add(orphanTimeout)
	for {
		hooks, runs := holdProcesses(abs)
		if len(hooks) == 0 && len(runs) == 0 {
			return
		}
		for _, pid := range hooks {
			unix.Kill(pid, unix.SIGKILL)
		}
		if time.Now().After(deadline) {
			for _, pid := range runs {
				unix.Kill(-pid, unix.SIGKILL) // the invocation leads its own process group (oci: Setpgid)
				unix.Kill(pid, unix.SIGKILL)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// holdProcesses lists the processes of a hold on the bundle directory abs: the held hooks
// (sh -c SCRIPT podspec-created abs) and the OCI runtime invocations (run --detach … --bundle
// abs), by their command lines in /proc. The container's own processes (runc init, runsc's
// sandbox and gofer, which name the bundle too) are neither.
func holdProcesses(abs string) (hooks, runs []int) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, nil
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte(abs)) {
			continue
		}
		argv := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
		if len(argv) == 5 && argv[3] == heldHookArg && argv[4] == abs {
			hooks = append(hooks, pid)
			continue
		}
		if slices.Contains(argv, "run") && slices.Contains(argv, "--detach") {
			if i := slices.Index(argv, "--bundle"); i >= 0 && i+1 < len(argv) && argv[i+1] == abs {
				runs = append(runs, pid)
			}
		}
	}
	return hooks, runs
}
