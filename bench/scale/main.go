// Command scale measures how the cost of podspec's pods grows with their number on one machine
// (issue 31), beside the same work done by the runtimes people already use, in the same run:
//
//   - podspec: N pods (one `sleep` container each, from the busybox layout) started with
//     `run --detach`, then one PreExistingPods Notification to all of them with a signal
//     notifier and one with an exec notifier (the Notification's parallelism is -parallel),
//     then `rm --force` of every pod;
//   - hand: the floor, the same containers with plain runc (`runc run -d`, `runc kill`,
//     `runc exec`, `runc delete`), fanned out with the same parallelism, no supervisor at all;
//   - containerd: Debian's containerd on a private root, state and socket, the same containers
//     through `ctr` (one containerd-shim-runc-v2 per container, which is one per pod here);
//   - podman: `podman pod create` and `podman run` per pod, `podman kill --signal`,
//     `podman exec`, `podman pod rm -f` (one conmon per container), on a private storage root.
//
// For each N and system it records the time to start all, to signal all, to exec in all, to
// remove all, the per-pod processes' summed PSS and RSS (podspec's supervisors, containerd's
// shims, podman's conmons), the machine's used memory while all run, and, for podspec, the
// time of `status` of one pod and of `list`, the Notification status' size, and that nothing
// is left (runc containers, mounts, cgroups, processes, pod directories, zombies). It prints the cost
// per pod at each N so that the growth shows. The systems alternate: their order rotates with
// each size. It never asserts a time; it reports them.
//
// Usage (as root; runc and busybox-static installed, containerd and podman for their columns;
// podspec-supervisor built beside podspec):
//
//	go build -o bin/ ./cmd/podspec ./cmd/podspec-supervisor && go run ./bench/scale -podspec bin/podspec -sizes 10,100,1000
//
// podspec's host-wide bound on creations at once (`run --host-create-parallelism`) is its
// default unless PODSPEC_HOST_CREATE_PARALLELISM is set in the environment, which every podspec
// command inherits.
//
// docs/benchmarks.md ("Scale") has the figures and how to read them.
package main

import (
	"context"
	"errors"
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
	"time"

	"podspec.dev/podspec/bench/internal/host"
	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/reaper"
)

func main() {
	bin := flag.String("podspec", "bin/podspec", "podspec binary (podspec-supervisor beside it)")
	sizes := flag.String("sizes", "10,100,1000", "numbers of pods, comma-separated")
	parallel := flag.Int("parallel", 8, "commands at once, for every system, and the Notifications' parallelism")
	only := flag.String("systems", "podspec,hand,containerd,podman", "systems to measure, comma-separated (those not installed are skipped, and said so)")
	flag.Parse()
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "scale: -sizes: %q is not a number of pods\n", s)
			os.Exit(2)
		}
		ns = append(ns, n)
	}
	if err := run(*bin, ns, *parallel, strings.Split(*only, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// system is one way of running N single-container pods. Every method works on the pods of the
// current size; remove must leave nothing, whatever happened before it.
type system interface {
	name() string
	// start starts n pods and returns when every container's program runs.
	start(ctx context.Context, n int) error
	// signal sends SIGHUP to every container's process and returns when every send is done.
	signal(ctx context.Context) error
	// exec runs `true` in every container and returns when every one has exited.
	exec(ctx context.Context) error
	// perPod returns the pids of the processes the system keeps per pod (none for the floor).
	perPod() ([]int, error)
	// remove stops and removes every pod.
	remove(ctx context.Context) error
	// leftovers names what the pods left after remove: nothing, when the system is clean.
	leftovers() []string
	// close ends what the system started for the whole run (a daemon).
	close()
}

// result is one system's figures at one size.
type result struct {
	sys string
	// failed says why the system was not measured at this size (its cells are "—"); empty if
	// it was.
	failed                        string
	start, signal, exec, remove   time.Duration
	pss, rss                      int // KiB, summed over the per-pod processes
	procs                         int
	usedBefore, usedAll           int // KiB of the machine's memory in use: before the start, all running
	statusOne, list, statusOneTen time.Duration
	statusBytes                   int
	restarted                     int   // podspec: pods Started only on a second instance
	signalTurns, execTurns        turns // podspec: where each Notification's time went
	left                          []string
}

func run(bin string, sizes []int, parallel int, only []string) error {
	ctx := context.Background()
	if os.Geteuid() != 0 {
		return errors.New("needs root (runc, containerd and podman run containers)")
	}
	work, err := os.MkdirTemp("", "podspec-scale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	layout := filepath.Join(work, "busybox")
	if _, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{Busybox: true, Cmd: []string{"sleep", "3600"}}); err != nil {
		return err
	}
	// This process is the subreaper of what the systems detach (podspec's supervisors,
	// containerd's shims, podman's conmons, the floor's containers): the reaper reaps each as it
	// ends, so that none is left a zombie, and leaves the commands run through command() to
	// their own Wait (reaper.StartCmd). It starts after the layout's build, whose `busybox
	// --list` is a plain os/exec child.
	rctx, stopReaping := context.WithCancel(ctx)
	defer stopReaping()
	rp, err := reaper.Start(rctx)
	if err != nil {
		return err
	}
	var systems []system
	defer func() {
		for _, s := range systems {
			s.close()
		}
	}()
	for _, name := range only {
		var s system
		var err error
		switch strings.TrimSpace(name) {
		case "podspec":
			s, err = newPodspec(ctx, bin, work, layout, parallel)
		case "hand":
			s, err = newHand(ctx, work, layout, parallel, rp)
		case "containerd":
			s, err = newContainerd(ctx, work, layout, parallel)
		case "podman":
			s, err = newPodman(ctx, work, layout, parallel)
		default:
			return fmt.Errorf("-systems: unknown system %q", name)
		}
		if err != nil {
			fmt.Printf("%s: not measured: %v\n", name, err)
			continue
		}
		systems = append(systems, s)
	}
	if len(systems) == 0 {
		return errors.New("no system to measure")
	}
	hostname, _ := os.Hostname()
	bound := os.Getenv("PODSPEC_HOST_CREATE_PARALLELISM") // podspec's commands inherit it
	if bound == "" {
		bound = "the default, two per CPU"
	}
	fmt.Printf("Machine: %s, %d CPUs, %s, %s memory; load before: %s; parallelism %d; podspec's creations at once on the host: %s\n\n", hostname, host.NumCPU(), host.Kernel(), kib(host.MemInfo("MemTotal:")), host.Loadavg(), parallel, bound)
	var all [][]result
	var failures []error
	for k, n := range sizes {
		var rs []result
		for j := range systems {
			s := systems[(k+j)%len(systems)] // the order rotates with the size
			r, err := measure(ctx, s, n)
			if err != nil {
				// One system's failure loses none of the others' figures: its cells say so.
				r = result{sys: s.name(), failed: summarise(err)}
				failures = append(failures, fmt.Errorf("%s, %d pods: %s", s.name(), n, r.failed))
			}
			fmt.Fprintf(os.Stderr, "scale: %s at %d pods done (load %s)\n", s.name(), n, host.Loadavg())
			rs = append(rs, r)
		}
		sort.Slice(rs, func(a, b int) bool { return order(rs[a].sys) < order(rs[b].sys) })
		all = append(all, rs)
		printSize(n, rs)
	}
	printGrowth(sizes, all)
	return errors.Join(failures...)
}

// summarise is a fan-out's error in one line: its first error and how many there were (a
// thousand pods refused for one cause make a thousand lines).
func summarise(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	if len(lines) == 1 {
		return lines[0]
	}
	return fmt.Sprintf("%s (and %d more errors)", lines[0], len(lines)-1)
}

// order is a system's column in the tables: podspec first, then the floor, then the peers.
func order(sys string) int {
	return slices.Index([]string{"podspec", "hand", "containerd", "podman"}, sys)
}

// measure runs the whole cycle of one system at one size. Whatever fails, the pods are removed.
func measure(ctx context.Context, s system, n int) (r result, err error) {
	r.sys = s.name()
	r.usedBefore = host.MemUsed()
	removed := false
	defer func() {
		if !removed {
			s.remove(ctx)
		}
	}()
	t := time.Now()
	if err := s.start(ctx, n); err != nil {
		return r, fmt.Errorf("start: %w", err)
	}
	r.start = time.Since(t)
	r.usedAll = host.MemUsed()
	pids, err := s.perPod()
	if err != nil {
		return r, err
	}
	r.procs = len(pids)
	for _, pid := range pids {
		r.pss += host.ProcKiB(pid, "smaps_rollup", "Pss:")
		r.rss += host.ProcKiB(pid, "status", "VmRSS:")
	}
	if p, ok := s.(*podspecSystem); ok {
		if r.statusOne, r.list, r.statusOneTen, err = p.queries(); err != nil {
			return r, err
		}
	}
	t = time.Now()
	if err := s.signal(ctx); err != nil {
		return r, fmt.Errorf("signal: %w", err)
	}
	r.signal = time.Since(t)
	t = time.Now()
	if err := s.exec(ctx); err != nil {
		return r, fmt.Errorf("exec: %w", err)
	}
	r.exec = time.Since(t)
	if p, ok := s.(*podspecSystem); ok {
		r.statusBytes, r.signalTurns, r.execTurns, r.restarted = p.statusBytes, p.turns["hup"], p.turns["ok"], p.restarted
	}
	t = time.Now()
	removed = true
	if err := s.remove(ctx); err != nil {
		return r, fmt.Errorf("remove: %w", err)
	}
	r.remove = time.Since(t)
	r.left = s.leftovers()
	if z := zombies(); z > 0 {
		r.left = append(r.left, fmt.Sprintf("%d zombies", z))
	}
	return r, nil
}

// zombies counts this process's children that ended and are not reaped, once the reaper had
// a second to reap them: what the systems detached and no one waited for.
func zombies() int {
	n := 0
	for deadline := time.Now().Add(time.Second); ; time.Sleep(50 * time.Millisecond) {
		n = 0
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if st, err := procstat.Read(pid); err == nil && st.PPID == os.Getpid() && st.State == 'Z' {
				n++
			}
		}
		if n == 0 || time.Now().After(deadline) {
			return n
		}
	}
}

func printSize(n int, rs []result) {
	fmt.Printf("### %d pods (load after: %s)\n\n", n, host.Loadavg())
	fmt.Printf("| | %s |\n|---|%s\n", strings.Join(names(rs), " | "), strings.Repeat("---:|", len(rs)))
	row := func(label string, f func(r result) string) {
		cells := make([]string, len(rs))
		for i, r := range rs {
			cells[i] = "—"
			if r.failed == "" {
				cells[i] = f(r)
			}
		}
		fmt.Printf("| %s | %s |\n", label, strings.Join(cells, " | "))
	}
	dur := func(f func(r result) time.Duration) func(r result) string {
		return func(r result) string {
			d := f(r)
			return fmt.Sprintf("%s (%s/pod)", d.Round(time.Millisecond), (d / time.Duration(n)).Round(10*time.Microsecond))
		}
	}
	row("start all (every program running)", dur(func(r result) time.Duration { return r.start }))
	row("SIGHUP to all (podspec: a signal Notification, created → final)", dur(func(r result) time.Duration { return r.signal }))
	row("exec `true` in all (podspec: an exec Notification)", dur(func(r result) time.Duration { return r.exec }))
	row("stop and remove all", dur(func(r result) time.Duration { return r.remove }))
	row("per-pod processes: count, PSS sum (per pod)", func(r result) string {
		if r.procs == 0 {
			return "none"
		}
		return fmt.Sprintf("%d, %s (%s)", r.procs, kib(r.pss), kib(r.pss/n))
	})
	row("their RSS sum (per pod)", func(r result) string {
		if r.procs == 0 {
			return "none"
		}
		return fmt.Sprintf("%s (%s)", kib(r.rss), kib(r.rss/n))
	})
	row("machine memory used, all running − before (per pod)", func(r result) string {
		d := r.usedAll - r.usedBefore
		return fmt.Sprintf("%s (%s)", kib(d), kib(d/n))
	})
	row("`status` of one pod, median of 10", func(r result) string { return optional(r.statusOne) })
	row("`list`, median of 5", func(r result) string { return optional(r.list) })
	row("Notification status, bytes", func(r result) string {
		if r.statusBytes == 0 {
			return "—"
		}
		return strconv.Itoa(r.statusBytes)
	})
	row("pods whose first creation failed (Started on a later instance)", func(r result) string {
		if r.sys != "podspec" {
			return "—"
		}
		return strconv.Itoa(r.restarted)
	})
	row("left after removal", func(r result) string {
		if len(r.left) == 0 {
			return "nothing"
		}
		return "**" + strings.Join(r.left, "; ") + "**"
	})
	fmt.Println()
	for _, r := range rs {
		if r.failed != "" {
			fmt.Printf("**%s was not measured at %d pods**: %s\n\n", r.sys, n, r.failed)
		}
	}
	for _, r := range rs {
		if r.sys == "podspec" {
			printTurns(r)
		}
	}
}

// printTurns prints where podspec's two Notifications spent their time, from their pod records.
func printTurns(r result) {
	fmt.Printf("podspec's Notifications, where the time goes (from the times in their pod records):\n\n")
	fmt.Printf("| | signal | exec |\n|---|---:|---:|\n")
	row := func(label string, f func(t turns) string) {
		fmt.Printf("| %s | %s | %s |\n", label, f(r.signalTurns), f(r.execTurns))
	}
	ms := func(d time.Duration) string { return d.Round(100 * time.Microsecond).String() }
	row("created → last pod record final", func(t turns) string { return ms(t.wall) })
	row("created → first turn accepted (`notify`, the runner's start)", func(t turns) string { return ms(t.firstTurn) })
	row("accepted → delivery Running, median (the supervisor's writes before the action)", func(t turns) string { return ms(t.accept) })
	row("delivery Running → final, median (the action)", func(t turns) string { return ms(t.action) })
	row("a slot freed → its next turn accepted, median (the runner)", func(t turns) string { return ms(t.gap) })
	row("occupancy of the parallelism's slots", func(t turns) string { return fmt.Sprintf("%.0f%%", 100*t.occupancy) })
	fmt.Println()
}

// printGrowth prints each system's cost per pod at each size, relative to its cost at the
// first size: 1.00× everywhere is linear growth.
func printGrowth(sizes []int, all [][]result) {
	if len(sizes) < 2 {
		return
	}
	fmt.Printf("### Growth: cost per pod at each size ÷ cost per pod at %d pods (1.00× = linear)\n\n", sizes[0])
	fmt.Printf("| system, step | %s |\n|---|%s\n", strings.Join(mapInts(sizes, func(n int) string { return strconv.Itoa(n) + " pods" }), " | "), strings.Repeat("---:|", len(sizes)))
	steps := []struct {
		label string
		f     func(r result) float64
	}{
		{"start", func(r result) float64 { return float64(r.start) }},
		{"signal", func(r result) float64 { return float64(r.signal) }},
		{"exec", func(r result) float64 { return float64(r.exec) }},
		{"remove", func(r result) float64 { return float64(r.remove) }},
		{"per-pod PSS", func(r result) float64 { return float64(r.pss) }},
	}
	for i := range all[0] {
		for _, st := range steps {
			base := st.f(all[0][i]) / float64(sizes[0])
			if base == 0 || all[0][i].failed != "" {
				continue
			}
			cells := make([]string, len(sizes))
			for k, n := range sizes {
				cells[k] = "—"
				if all[k][i].failed == "" {
					cells[k] = fmt.Sprintf("%.2f×", st.f(all[k][i])/float64(n)/base)
				}
			}
			fmt.Printf("| %s, %s | %s |\n", all[0][i].sys, st.label, strings.Join(cells, " | "))
		}
	}
	fmt.Printf("\n### Ratios at each size (podspec ÷ peer; below 1.00× podspec is ahead)\n\n")
	for k, n := range sizes {
		rs := all[k]
		var ps result
		for _, r := range rs {
			if r.sys == "podspec" {
				ps = r
			}
		}
		if ps.sys == "" || ps.failed != "" {
			continue
		}
		for _, r := range rs {
			if r.sys == "podspec" || r.failed != "" {
				continue
			}
			pss := "—"
			if r.pss > 0 && ps.pss > 0 {
				pss = fmt.Sprintf("%.2f×", float64(ps.pss)/float64(r.pss))
			}
			fmt.Printf("- %d pods, against %s: start %.2f×, signal %.2f×, exec %.2f×, remove %.2f×, per-pod PSS %s\n",
				n, r.sys, ratio(ps.start, r.start), ratio(ps.signal, r.signal), ratio(ps.exec, r.exec), ratio(ps.remove, r.remove), pss)
		}
	}
	fmt.Println()
}

func names(rs []result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.sys
	}
	return out
}

func mapInts(ns []int, f func(int) string) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = f(n)
	}
	return out
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func optional(d time.Duration) string {
	if d == 0 {
		return "—"
	}
	return d.Round(100 * time.Microsecond).String()
}

// fanOut calls fn(i) for i in [0, n), parallel at a time, and returns the first error.
func fanOut(n, parallel int, fn func(i int) error) error {
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = fn(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// command runs name with args and returns its standard output; a failure carries its standard
// error.
func command(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := reaper.RunCmd(cmd); err != nil {
		return out.String(), fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// pidsOf returns the pids of the processes whose executable's base name is exe and whose
// command line, its arguments joined by spaces, contains marker.
func pidsOf(exe, marker string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || len(cmdline) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if filepath.Base(args[0]) == exe && strings.Contains(strings.Join(args, " "), marker) {
			out = append(out, pid)
		}
	}
	return out
}

// kib formats an amount of KiB in MiB.
func kib(k int) string {
	if k >= 10*1024 || k <= -10*1024 {
		return fmt.Sprintf("%.0f MiB", float64(k)/1024)
	}
	return fmt.Sprintf("%.2f MiB", float64(k)/1024)
}
