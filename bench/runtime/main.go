// Command runtime measures the reference runtime against the floor of plain runc on this
// machine (issue 3, item 8), and prints a Markdown report:
//
//   - pod start latency: `podspec run --detach` of a 3-container pod until the last main
//     container's ContainerStarted event; floor: `runc run --detach` of the same three
//     containers (same config, fresh overlay root filesystems) in parallel; and a second
//     floor, the held floor (held.go): the same three `runc run` doing what podspec's
//     semantics need of runc — each instance held by podspec's createRuntime hook until its
//     pid is known, the pod's namespaces joined, the output in a log file — and nothing of
//     podspec's own; with the moments of each (pod created and started, pids reported,
//     programs running);
//   - pod stop latency: `podspec stop` until PodFinished; floor: `runc kill TERM` of the three,
//     waiting for their exits (as their subreaper) and `runc delete`;
//   - 50 pods at once: supervisor RSS per pod, and what is left after they are all removed.
//
// Usage (as root, runc and busybox-static installed; podspec-supervisor built beside podspec,
// or the supervisors run as `podspec supervise` — the report names the binary they ran):
//
//	go build -o bin/ ./cmd/podspec ./cmd/podspec-supervisor && go run ./bench/runtime -podspec bin/podspec -n 10 -pods 50
//
// -parts adds floors that take one of the held floor's steps each; -baseline BIN alternates a
// second podspec build with -podspec (docs/benchmarks.md, "Runtime").
//
// It never asserts on times; it reports them.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/bench/internal/host"
	"podspec.dev/podspec/bench/internal/podroot"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/image"
	"podspec.dev/podspec/reference/oci"
	"podspec.dev/podspec/reference/sandbox"
	"podspec.dev/podspec/reference/store"
)

func main() {
	bin := flag.String("podspec", "bin/podspec", "podspec binary")
	n := flag.Int("n", 10, "repetitions of the start/stop measurements")
	pods := flag.Int("pods", 50, "pods running at once for the memory measurement")
	baseline := flag.String("baseline", "", "another podspec build, alternated with -podspec in the start measurement, to measure a change (its root is a state directory of its own)")
	parts := flag.Bool("parts", false, "also alternate floors that take one of the held floor's steps each (hook, namespaces, podspec's runc flags)")
	peers := flag.String("peers", "", "instead: start→exit of the 3-container pod on each runtime, NAME=COMMAND,... (COMMAND a contract --runtime prefix; ROOT becomes a state directory of its own), alternated, ratios to the first")
	flag.Parse()
	if *peers != "" {
		ps, err := parsePeers(*peers)
		if err == nil {
			err = runPeers(ps, *n)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*bin, *baseline, *n, *pods, *parts); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// The three main containers of the measured pod: each traps SIGTERM and exits 0.
var containers = []string{"a", "b", "c"}

const command = "trap 'exit 0' TERM; while true; do sleep 0.05; done"

// calmCommand is what the containers of the many-pod run execute: the same trap, but one
// `sleep` a second instead of twenty (150 shells forking twenty times a second overloaded a
// 2-CPU machine until runc create timed out).
const calmCommand = "trap 'exit 0' TERM; while true; do sleep 1; done"

// partFloors are the floors -parts adds, each with one of the held floor's steps.
var partFloors = []struct {
	name  string
	parts heldParts
}{
	{"the held floor with podspec's cgroup layout (/podspec/UID/ID instead of runc's default)", heldParts{hook: true, join: true, flags: true, cgroup: podspecCgroup}},
	{"the held floor with the cgroup /podspec-UID/ID (as deep, a parent of the pod's own)", heldParts{hook: true, join: true, flags: true, cgroup: "/podspec-%[1]s/%[2]s"}},
	{"the held floor with the explicit cgroup /ID (runc's default depth)", heldParts{hook: true, join: true, flags: true, cgroup: "/%[2]s"}},
	{"runc with the createRuntime hook hold only", heldParts{hook: true}},
	{"runc joining the pod's namespaces only", heldParts{join: true}},
	{"runc with podspec's flags and log file only", heldParts{flags: true}},
}

func run(bin, baseline string, n, pods int, parts bool) error {
	ctx := context.Background()
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "podspec-bench-")
	if err != nil {
		return err
	}
	root := filepath.Join(work, "root")
	defer func() {
		// Whatever happened, no pod outlives the run: remove them before their directories.
		podroot.Root{Bin: bin, Dir: root}.RemoveAll()
		os.RemoveAll(work)
	}()
	layout := filepath.Join(work, "busybox")
	if _, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{Busybox: true}); err != nil {
		return err
	}
	writeManifest := func(file, cmd string) (string, error) {
		var b strings.Builder
		fmt.Fprintf(&b, "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: bench}\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 10\n  containers:\n")
		for _, c := range containers {
			fmt.Fprintf(&b, "  - {name: %s, image: \"oci:%s\", command: [sh, -c, %q]}\n", c, layout, cmd)
		}
		path := filepath.Join(work, file)
		return path, os.WriteFile(path, []byte(b.String()), 0o644)
	}
	manifest, err := writeManifest("pod.yaml", command)
	if err != nil {
		return err
	}
	calmManifest, err := writeManifest("calm.yaml", calmCommand)
	if err != nil {
		return err
	}

	// Warm the image cache of both paths.
	if _, err := podspecOnce(bin, root, manifest, "warm"); err != nil {
		return err
	}
	baseRoot := filepath.Join(work, "baseline-root")
	if baseline != "" {
		defer podroot.Root{Bin: baseline, Dir: baseRoot}.RemoveAll()
		if _, err := podspecOnce(baseline, baseRoot, manifest, "warm"); err != nil {
			return err
		}
	}
	imgs := &image.Store{Root: filepath.Join(work, "floor-images")}
	ref, _ := ocilayout.ParseReference("oci:"+layout, "")
	img, err := imgs.Resolve(ctx, ref)
	if err != nil {
		return err
	}
	if _, err := imgs.Unpack(ctx, img); err != nil {
		return err
	}

	// The held floor's pod sandbox: the pinned namespaces its containers join, as a pod's do.
	sb, err := sandbox.Create(ctx, nil, filepath.Join(work, "held-sandbox"), "bench", heldFloorUID)
	if err != nil {
		return err
	}
	defer sb.Destroy(context.WithoutCancel(ctx))
	// One untimed round of each floor too (n: an index no measured round uses).
	if _, _, err := floorOnce(ctx, work, imgs, img, n); err != nil {
		return err
	}
	if _, err := heldFloorOnce(ctx, work, imgs, img, sb, allParts, n); err != nil {
		return err
	}

	var ps []podTimes
	var plain, held []floorTimes
	var flStop []time.Duration
	partial := make([][]floorTimes, len(partFloors))
	runners := []func(i int) error{
		func(i int) error {
			t, err := podspecOnce(bin, root, manifest, fmt.Sprintf("p%d", i))
			ps = append(ps, t)
			return err
		},
		func(i int) error {
			t, stop, err := floorOnce(ctx, work, imgs, img, i)
			plain, flStop = append(plain, t), append(flStop, stop)
			return err
		},
		func(i int) error {
			t, err := heldFloorOnce(ctx, work, imgs, img, sb, allParts, i)
			held = append(held, t)
			return err
		},
	}
	var base []podTimes
	if baseline != "" {
		runners = append(runners, func(i int) error {
			t, err := podspecOnce(baseline, baseRoot, manifest, fmt.Sprintf("b%d", i))
			base = append(base, t)
			return err
		})
	}
	if parts {
		for k, pf := range partFloors {
			runners = append(runners, func(i int) error {
				t, err := heldFloorOnce(ctx, work, imgs, img, sb, pf.parts, i)
				partial[k] = append(partial[k], t)
				return err
			})
		}
	}
	for i := 0; i < n; i++ {
		// They alternate, and their order rotates, so that what one leaves to the kernel
		// (namespaces and cgroups torn down after it) falls on each of the others alike.
		for j := range runners {
			if err := runners[(i+j)%len(runners)](i); err != nil {
				return err
			}
		}
	}
	col := func(ts []floorTimes, f func(floorTimes) time.Duration) []time.Duration {
		out := make([]time.Duration, len(ts))
		for k, t := range ts {
			out[k] = f(t)
		}
		return out
	}
	pcol := func(f func(podTimes) time.Duration) []time.Duration {
		out := make([]time.Duration, len(ps))
		for k, t := range ps {
			out[k] = f(t)
		}
		return out
	}
	psStart, psStop := pcol(func(t podTimes) time.Duration { return t.running }), pcol(func(t podTimes) time.Duration { return t.stop })
	plainRun := col(plain, func(t floorTimes) time.Duration { return t.running })
	heldRun := col(held, func(t floorTimes) time.Duration { return t.running })
	hostname, _ := os.Hostname()
	rv, _ := exec.Command("runc", "--version").Output()
	fmt.Printf("Machine: %s, %d CPUs, %s; %s\n\n", hostname, host.NumCPU(), host.Kernel(), strings.SplitN(string(rv), "\n", 2)[0])
	fmt.Printf("| measurement (n=%d, ms: median / min / max) | podspec | floor | ratio (median) |\n|---|---|---|---|\n", n)
	fmt.Printf("| start: 3-container pod, run → last main ContainerStarted (its program running), against the plain runc floor | %s | %s | %.2f× |\n", stats(psStart), stats(plainRun), ratio(psStart, plainRun))
	fmt.Printf("| start, against the held floor (runc doing what podspec's semantics need of it: hook hold, pod namespaces, log file) | %s | %s | %.2f× |\n", stats(psStart), stats(heldRun), ratio(psStart, heldRun))
	fmt.Printf("| the held floor against the plain floor (runc's own share of podspec's semantics) | %s | %s | %.2f× |\n", stats(heldRun), stats(plainRun), ratio(heldRun, plainRun))
	fmt.Printf("| stop: stop → PodFinished (containers exit on SIGTERM), against the plain floor | %s | %s | %.2f× |\n", stats(psStop), stats(flStop), ratio(psStop, flStop))
	if baseline != "" {
		b := make([]time.Duration, len(base))
		for k, t := range base {
			b[k] = t.running
		}
		fmt.Printf("| start: -podspec against -baseline (%s) | %s | %s | %.2f× |\n", baseline, stats(psStart), stats(b), ratio(psStart, b))
		fmt.Printf("| start: -baseline against the held floor | %s | %s | %.2f× |\n", stats(b), stats(heldRun), ratio(b, heldRun))
	}
	if parts {
		for k, pf := range partFloors {
			r := col(partial[k], func(t floorTimes) time.Duration { return t.running })
			fmt.Printf("| %s, against the plain floor | %s | %s | %.2f× |\n", pf.name, stats(r), stats(plainRun), ratio(r, plainRun))
		}
	}
	fmt.Printf("\nWhere the start goes (ms after the start: podspec's `run` exec'd, the floors' first `runc run`; medians of each row, so a column need not add up):\n\n")
	bcol := func(f func(podTimes) time.Duration) string {
		if baseline == "" {
			return ""
		}
		out := make([]time.Duration, len(base))
		for k, t := range base {
			out[k] = f(t)
		}
		return " " + median(out) + " |"
	}
	bhead, bsep := "", ""
	if baseline != "" {
		bhead, bsep = " baseline |", "---:|"
	}
	pm := func(f func(podTimes) time.Duration) string { return median(pcol(f)) + " |" + bcol(f) }
	fm := func(ts []floorTimes, f func(floorTimes) time.Duration) string { return median(col(ts, f)) }
	nb := ""
	if baseline != "" {
		nb = " |"
	}
	fmt.Printf("| moment | podspec |%s held floor | plain floor |\n|---|---:|%s---:|---:|\n", bhead, bsep)
	fmt.Printf("| PodCreated (run validated the manifest, resolved its images, created the pod) | %s | |\n", pm(func(t podTimes) time.Duration { return t.created }))
	fmt.Printf("| PodStarted (the supervisor has its pod, its state, the sandbox) | %s | |\n", pm(func(t podTimes) time.Duration { return t.podStarted }))
	fmt.Printf("| first pid before the start (podspec: ContainerCreated; the hook reported it) | %s %s | |\n", pm(func(t podTimes) time.Duration { return t.firstCreated }), fm(held, func(t floorTimes) time.Duration { return t.firstPID }))
	fmt.Printf("| last pid before the start | %s %s | |\n", pm(func(t podTimes) time.Duration { return t.lastCreated }), fm(held, func(t floorTimes) time.Duration { return t.lastPID }))
	fmt.Printf("| the last `runc run` returned | |%s %s | %s |\n", nb, fm(held, func(t floorTimes) time.Duration { return t.returned }), fm(plain, func(t floorTimes) time.Duration { return t.returned }))
	fmt.Printf("| last program running (podspec: ContainerStarted) | %s %s | %s |\n", pm(func(t podTimes) time.Duration { return t.running }), median(heldRun), median(plainRun))
	fmt.Println()

	// The latency figures are printed first: the many-pod run may fail on an overloaded machine.
	if pods <= 0 {
		return nil
	}
	rss, supBin, leftovers, err := manyPods(bin, root, calmManifest, pods)
	if err != nil {
		return err
	}
	med := func(f func(memory) int) string {
		v := make([]int, len(rss))
		for i, m := range rss {
			v[i] = f(m)
		}
		sort.Ints(v)
		return fmt.Sprintf("%.1f MB (max %.1f)", float64(v[len(v)/2])/1024, float64(v[len(v)-1])/1024)
	}
	fmt.Printf("\n%d pods (3 containers each) running at once, per supervisor process (%s): RSS %s, of which private (RssAnon) %s; PSS (shared pages of the binary divided among the processes that map them) %s.\n",
		len(rss), supBin, med(func(m memory) int { return m.rss }), med(func(m memory) int { return m.anon }), med(func(m memory) int { return m.pss }))
	fmt.Printf("After stopping and removing all of them: %s\n", leftovers)
	return nil
}

// podTimes are the moments of one podspec pod, from its events' own times, measured from the
// exec of `run` (start) and of `stop` (stop).
type podTimes struct {
	created, podStarted       time.Duration // PodCreated, PodStarted
	firstCreated, lastCreated time.Duration // the main containers' ContainerCreated
	running                   time.Duration // the last main ContainerStarted
	stop                      time.Duration // stop → PodFinished
}

// podspecOnce runs the pod once through the command line and returns its start moments and
// its stop latency.
func podspecOnce(bin, root, manifest, name string) (podTimes, error) {
	var t podTimes
	t0 := time.Now()
	if out, err := exec.Command(bin, "--root", root, "run", "--detach", "--name", name, manifest).CombinedOutput(); err != nil {
		return t, fmt.Errorf("run: %v: %s", err, out)
	}
	s, _ := store.Open(root)
	p, err := s.Pod(name)
	if err != nil {
		return t, err
	}
	for started := 0; started < len(containers); {
		started = 0
		t.firstCreated, t.lastCreated, t.running = 0, 0, 0
		evs, _ := p.ReadEvents(0)
		for _, ev := range evs {
			at := ev.Time.Sub(t0)
			switch {
			case ev.Type == runtimev1.EventPodCreated:
				t.created = at
			case ev.Type == runtimev1.EventPodStarted:
				t.podStarted = at
			case ev.Type == runtimev1.EventContainerCreated && ev.ContainerKind == "main":
				if t.firstCreated == 0 || at < t.firstCreated {
					t.firstCreated = at
				}
				t.lastCreated = max(t.lastCreated, at)
			case ev.Type == runtimev1.EventContainerStarted && ev.ContainerKind == "main":
				started++
				t.running = max(t.running, at)
			}
		}
		// The latency comes from the events' own times, so polling slowly loses nothing, and
		// spares the CPU the pod's start competes for (the floor is not polled at all).
		time.Sleep(25 * time.Millisecond)
	}
	t1 := time.Now()
	if out, err := exec.Command(bin, "--root", root, "stop", name).CombinedOutput(); err != nil {
		return t, fmt.Errorf("stop: %v: %s", err, out)
	}
	var fin time.Time
	for fin.IsZero() {
		evs, _ := p.ReadEvents(0)
		for _, ev := range evs {
			if ev.Type == runtimev1.EventPodFinished {
				fin = ev.Time
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	if out, err := exec.Command(bin, "--root", root, "rm", name).CombinedOutput(); err != nil {
		return t, fmt.Errorf("rm: %v: %s", err, out)
	}
	t.stop = fin.Sub(t1)
	return t, nil
}

// floorOnce starts the same three containers with plain runc (bundles prepared beforehand),
// then stops them with SIGTERM and deletes them. It returns when the three `runc run` returned
// and when the three programs ran (each process no longer runc's init: what podspec waits for
// before it records ContainerStarted), and the stop time.
func floorOnce(ctx context.Context, work string, imgs *image.Store, img *ocilayout.Image, i int) (floorTimes, time.Duration, error) {
	rt := &oci.Runtime{Root: filepath.Join(work, "floor-runc")}
	var bundles, ids []string
	var cleanups []func() error
	defer func() {
		for _, c := range cleanups {
			c()
		}
	}()
	for _, c := range containers {
		id := fmt.Sprintf("floor-%d-%s", i, c)
		bundle := filepath.Join(work, "floor", id)
		if err := os.MkdirAll(bundle, 0o700); err != nil {
			return floorTimes{}, 0, err
		}
		cleanup, err := imgs.NewRootfs(ctx, img, filepath.Join(bundle, "rootfs"))
		if err != nil {
			return floorTimes{}, 0, err
		}
		cleanups = append(cleanups, cleanup)
		if err := oci.WriteBundle(bundle, oci.ContainerConfig{Rootfs: filepath.Join(bundle, "rootfs"), Args: []string{"sh", "-c", command}}); err != nil {
			return floorTimes{}, 0, err
		}
		bundles, ids = append(bundles, bundle), append(ids, id)
	}
	devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	defer devnull.Close()
	pids := make([]int, len(ids))
	errs := make([]error, len(ids))
	returned, executed := make([]time.Duration, len(ids)), make([]time.Duration, len(ids))
	t0 := time.Now()
	var wg sync.WaitGroup
	for k := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pidFile := filepath.Join(bundles[k], "pid")
			cmd := exec.Command("runc", "--root", rt.Root, "run", "--detach", "--pid-file", pidFile, "--bundle", bundles[k], ids[k])
			cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
			if errs[k] = cmd.Run(); errs[k] != nil {
				return
			}
			returned[k] = time.Since(t0)
			b, err := os.ReadFile(pidFile)
			if err != nil {
				errs[k] = err
				return
			}
			if pids[k], errs[k] = strconv.Atoi(strings.TrimSpace(string(b))); errs[k] == nil {
				host.WaitExecuted(pids[k], 2*time.Second)
				executed[k] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	start, exec := slices.Max(returned), slices.Max(executed)
	for _, err := range errs {
		if err != nil {
			return floorTimes{}, 0, fmt.Errorf("runc run: %w", err)
		}
	}
	for _, pid := range pids {
		waitTrapped(pid)
	}
	t1 := time.Now()
	for k := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rt.Kill(ctx, ids[k], syscall.SIGTERM, false)
			var ws unix.WaitStatus
			unix.Wait4(pids[k], &ws, 0, nil)
			rt.Delete(ctx, ids[k], false)
		}()
	}
	wg.Wait()
	return floorTimes{returned: start, running: exec}, time.Since(t1), nil
}

// waitTrapped waits until process pid catches SIGTERM (its shell installed the trap), for at most
// five seconds. Each container's shell is PID 1 of its namespace: a SIGTERM that comes before the
// trap is discarded, and the container would never stop.
func waitTrapped(pid int) {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "SigCgt:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && m&(1<<(uint(syscall.SIGTERM)-1)) != 0 {
					return
				}
			}
		}
	}
}

// memory is one process's memory use in KiB.
type memory struct{ rss, anon, pss int }

// forEachPod calls fn for 0..count-1, four at a time, and returns when all calls have.
func forEachPod(count int, fn func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i := 0; i < count; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			fn(i)
		}()
	}
	wg.Wait()
}

// manyPods runs count pods at once, measures their supervisors' memory, then stops and
// removes them and reports the supervisors' binary and what is left.
func manyPods(bin, root, manifest string, count int) ([]memory, string, string, error) {
	errs := make([]error, count)
	forEachPod(count, func(i int) {
		if out, err := exec.Command(bin, "--root", root, "run", "--detach", "--name", fmt.Sprintf("many-%d", i), manifest).CombinedOutput(); err != nil {
			errs[i] = fmt.Errorf("run many-%d: %v: %s", i, err, out)
		}
	})
	removeAll := func() {
		forEachPod(count, func(i int) {
			exec.Command(bin, "--root", root, "rm", "--force", fmt.Sprintf("many-%d", i)).Run()
		})
	}
	for _, err := range errs {
		if err != nil {
			removeAll()
			return nil, "", "", err
		}
	}
	s, _ := store.Open(root)
	var rss []memory
	var pids []int
	var uids []string
	for i := 0; i < count; i++ {
		p, err := s.Pod(fmt.Sprintf("many-%d", i))
		if err != nil {
			removeAll()
			return nil, "", "", err
		}
		for {
			st, err := p.ReadState()
			if err != nil {
				removeAll()
				return nil, "", "", err
			}
			uids = append(uids[:i], st.Pod.Status.UID)
			running := 0
			for name, c := range st.Containers {
				if c.Running {
					running++
				}
				if c.Terminal {
					// Never all running (a runc create that timed out on an overloaded
					// machine, for instance): measuring would wait forever.
					removeAll()
					return nil, "", "", fmt.Errorf("pod many-%d: container %s ended before all three ran (pod %s %s)", i, name, st.Pod.Status.Phase, st.Pod.Status.Reason)
				}
			}
			if running == len(containers) {
				pids = append(pids, st.Supervisor.PID)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	supBin := "unknown binary"
	if len(pids) > 0 {
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pids[0])); err == nil {
			supBin = filepath.Base(exe)
		}
	}
	for _, pid := range pids {
		rss = append(rss, memory{rss: host.ProcKiB(pid, "status", "VmRSS:"), anon: host.ProcKiB(pid, "status", "RssAnon:"), pss: host.ProcKiB(pid, "smaps_rollup", "Pss:")})
	}
	removeAll()
	var left []string
	if out, _ := exec.Command("runc", "--root", filepath.Join(root, "runc"), "list", "-q").Output(); len(bytes.TrimSpace(out)) > 0 {
		left = append(left, "runc containers: "+strings.Join(strings.Fields(string(out)), " "))
	}
	if mounts, _ := mountinfo.GetMounts(mountinfo.PrefixFilter(root)); len(mounts) > 0 {
		left = append(left, "mounts under the root")
	}
	if out, _ := exec.Command("pgrep", "-f", "supervise --root "+root).Output(); len(bytes.TrimSpace(out)) > 0 {
		left = append(left, "supervisor processes "+strings.Join(strings.Fields(string(out)), " "))
	}
	if names, _ := s.List(); len(names) > 0 {
		left = append(left, fmt.Sprintf("%d pod directories", len(names)))
	}
	cgroups := 0
	for _, uid := range uids {
		if p, err := oci.CgroupFile("/podspec/"+uid, "pids", ""); err == nil {
			if _, err := os.Stat(p); err == nil {
				cgroups++
			}
		}
	}
	if cgroups > 0 {
		left = append(left, fmt.Sprintf("%d of the pods' cgroups", cgroups))
	}
	if len(left) == 0 {
		return rss, supBin, "nothing left (no runc container, mount, supervisor process, pod directory or pod cgroup).", nil
	}
	return rss, supBin, "LEFT: " + strings.Join(left, "; "), nil
}

func stats(ds []time.Duration) string {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return fmt.Sprintf("%.0f / %.0f / %.0f", ms(s[len(s)/2]), ms(s[0]), ms(s[len(s)-1]))
}

// median formats the median of ds in milliseconds.
func median(ds []time.Duration) string {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return fmt.Sprintf("%.0f", float64(s[len(s)/2].Microseconds())/1000)
}

func ratio(a, b []time.Duration) float64 {
	med := func(ds []time.Duration) time.Duration {
		s := append([]time.Duration(nil), ds...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[len(s)/2]
	}
	return float64(med(a)) / float64(med(b))
}
