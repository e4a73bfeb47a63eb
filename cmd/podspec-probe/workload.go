package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
)

// rootfsMarker is left in the root filesystem by every instance; a fresh root filesystem lacks it.
const rootfsMarker = "/.podspec-probe-instance"

// signalAction is what the workload does when a signal arrives.
type signalAction struct {
	exit   bool          // exit (after linger) rather than keep running
	linger time.Duration // time between the signal and the exit
	code   int           // exit code
}

// workloadConfig is the parsed command line of `podspec-probe run`.
type workloadConfig struct {
	name, socket string
	exitCode     int
	after        time.Duration
	loop         bool
	counter      string
	codes        []string // per-instance plan: an exit code or "loop"
	on           map[syscall.Signal]signalAction
	report       bool
	read         []string
	write        map[string]string
	touch        []string
	touchDelay   time.Duration
	crashAfter   time.Duration
	crashCore    string // directory to dump a core into ("" with crashNoCore or by default)
	crashNoCore  bool
	stdout       string
	fill         []fillFile
	flood        int64
	waitFor      []string
	list         []string
	stat         []string
	eatAfter     time.Duration
	eatBytes     int64
	eatInChild   bool     // a child process uses the memory; the workload exits 1 if the child fails
	reportWhen   []string // files whose appearance triggers one more report each
	serve        *serveConfig
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parseWorkload parses the flags of `podspec-probe run`.
func parseWorkload(args []string) (*workloadConfig, error) {
	fs := flag.NewFlagSet("podspec-probe run", flag.ContinueOnError)
	c := &workloadConfig{
		on: map[syscall.Signal]signalAction{
			syscall.SIGTERM: {exit: true},
			syscall.SIGINT:  {exit: true},
		},
		write: map[string]string{},
	}
	var codes string
	var on, read, write, fill, touch, waitFor, list, stat, reportWhen listFlag
	var httpAddrs, httpsAddrs, routes, tcps, grpcAddrs, grpcStatus listFlag
	fs.StringVar(&c.name, "name", "", "container name to report (default $"+probe.EnvName+", else the hostname)")
	fs.StringVar(&c.socket, "socket", "", "harness socket (default $"+probe.EnvSocket+", else "+probe.DefaultSocket+")")
	fs.IntVar(&c.exitCode, "exit", 0, "exit code when the delay ends")
	fs.DurationVar(&c.after, "after", 0, "exit after this long (0: at once, unless -loop)")
	fs.BoolVar(&c.loop, "loop", false, "never exit on its own; only a signal with an exit action ends it")
	fs.StringVar(&c.counter, "counter", "", "file on a volume counting instances across restarts")
	fs.StringVar(&codes, "codes", "", "per-instance plan, e.g. 1,0,loop: instance i exits with the i-th code (the last repeats); needs -counter")
	fs.Var(&on, "on", "SIGNAL=exit[:LINGER[:CODE]] or SIGNAL=ignore (repeatable); default SIGTERM and SIGINT exit at once with 0, other signals are reported and ignored")
	fs.BoolVar(&c.report, strings.TrimPrefix(probe.ReportFlag, "-"), false, "report env, hostname, cgroup limits and mounts after starting")
	fs.Var(&read, "read", "file whose content goes into the report (repeatable)")
	fs.Var(&list, "list", "directory whose entries go into the report (repeatable)")
	fs.Var(&stat, "stat", "path whose lstat (mode, owner, modification time) goes into the report (repeatable)")
	fs.Var(&write, "write", "PATH=CONTENT written at start (repeatable)")
	fs.Var(&fill, "fill", "PATH=BYTES: a file of BYTES bytes (written, not sparse) made at start, after the -write files (repeatable)")
	fs.Var(&touch, "touch", "file created after starting (repeatable), e.g. a readiness marker; {instance} in the path becomes the instance number")
	fs.DurationVar(&c.touchDelay, "touch-delay", 0, "delay before creating the -touch files")
	fs.DurationVar(&c.crashAfter, "crash-after", 0, "die from SIGSEGV after this long (0: never)")
	fs.StringVar(&c.crashCore, "crash-core", "", "before crashing, allow a core dump into this directory (dumpable, RLIMIT_CORE at its hard limit, working directory)")
	fs.BoolVar(&c.crashNoCore, "crash-no-core", false, "before crashing, make the process non-dumpable, so no core is dumped")
	fs.DurationVar(&c.eatAfter, "eat-after", 0, "start using memory after this long (with -eat-bytes)")
	fs.Int64Var(&c.eatBytes, "eat-bytes", 0, "bytes of memory to allocate and touch (e.g. more than the container's limit, to be OOM-killed)")
	fs.BoolVar(&c.eatInChild, "eat-in-child", false, "a child process uses the -eat-bytes memory; when the child fails (e.g. is OOM-killed) the workload exits 1")
	fs.StringVar(&c.stdout, "stdout", "", "line printed on stdout at start")
	fs.Int64Var(&c.flood, "flood", 0, "bytes written to stdout at start, as fast as it can, in numbered lines of FloodLine bytes; a failed write ends the workload with exit code FloodFailed")
	fs.Var(&reportWhen, "report-when", "file whose appearance makes the running instance report again (repeatable; one report per file): what the same process sees later, e.g. cgroup limits changed in place")
	fs.Var(&waitFor, "wait-for", "file that must exist before the -after and -crash-after delays start (repeatable): a rendezvous with another container")
	fs.Var(&httpAddrs, "http", "IP:PORT an HTTP server listens on (repeatable); it answers the -route plans and 404 to other paths")
	fs.Var(&httpsAddrs, "https", "IP:PORT an HTTPS server listens on (repeatable), with a self-signed certificate made at start; it answers as -http")
	fs.Var(&routes, "route", "/PATH=PLAN: the answers of the HTTP servers to PATH (repeatable); PLAN is CODE[@DELAY][>LOCATION],...: request n gets the n-th answer, the last repeats")
	fs.Var(&tcps, "tcp", "IP:PORT[=ACCEPTS] a TCP listener listens on (repeatable); it closes after ACCEPTS connections (default never)")
	fs.Var(&grpcAddrs, "grpc", "IP:PORT a gRPC health server (grpc.health.v1) listens on (repeatable)")
	fs.Var(&grpcStatus, "grpc-status", "SERVICE=SERVING|NOT_SERVING: a service's health (repeatable); the service \"\" is SERVING unless set")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	serve, err := parseServe(httpAddrs, httpsAddrs, routes, tcps, grpcAddrs, grpcStatus)
	if err != nil {
		return nil, err
	}
	c.serve = serve
	for _, o := range on {
		sig, act, err := parseOn(o)
		if err != nil {
			return nil, err
		}
		c.on[sig] = act
	}
	if c.crashCore != "" && c.crashNoCore {
		return nil, errors.New("-crash-core and -crash-no-core exclude each other")
	}
	if codes != "" {
		if c.counter == "" {
			return nil, errors.New("-codes needs -counter")
		}
		c.codes = strings.Split(codes, ",")
		for _, s := range c.codes {
			if s == "loop" {
				continue
			}
			if _, err := strconv.Atoi(s); err != nil {
				return nil, fmt.Errorf("-codes: %q is neither an exit code nor loop", s)
			}
		}
	}
	c.read = read
	c.touch = touch
	c.waitFor = waitFor
	c.reportWhen = reportWhen
	c.list = list
	c.stat = stat
	for _, w := range write {
		path, content, ok := strings.Cut(w, "=")
		if !ok || path == "" {
			return nil, fmt.Errorf("-write %q: want PATH=CONTENT", w)
		}
		c.write[path] = content
	}
	for _, f := range fill {
		path, size, ok := strings.Cut(f, "=")
		n, err := strconv.ParseInt(size, 10, 64)
		if !ok || path == "" || err != nil || n < 0 {
			return nil, fmt.Errorf("-fill %q: want PATH=BYTES", f)
		}
		c.fill = append(c.fill, fillFile{path, n})
	}
	return c, nil
}

// parseOn parses SIGNAL=exit[:LINGER[:CODE]] | SIGNAL=ignore.
func parseOn(s string) (syscall.Signal, signalAction, error) {
	name, spec, ok := strings.Cut(s, "=")
	if !ok {
		return 0, signalAction{}, fmt.Errorf("-on %q: want SIGNAL=ACTION", s)
	}
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	num, known := v1alpha1.SignalNumber(name)
	if !known || v1alpha1.Uncatchable(name) {
		return 0, signalAction{}, fmt.Errorf("-on %q: %s cannot be trapped", s, name)
	}
	parts := strings.Split(spec, ":")
	var act signalAction
	switch parts[0] {
	case "ignore":
		if len(parts) > 1 {
			return 0, signalAction{}, fmt.Errorf("-on %q: ignore takes no arguments", s)
		}
	case "exit":
		act.exit = true
		if len(parts) > 3 {
			return 0, signalAction{}, fmt.Errorf("-on %q: want exit[:LINGER[:CODE]]", s)
		}
		if len(parts) > 1 && parts[1] != "" {
			d, err := time.ParseDuration(parts[1])
			if err != nil {
				return 0, signalAction{}, fmt.Errorf("-on %q: linger: %w", s, err)
			}
			act.linger = d
		}
		if len(parts) > 2 {
			code, err := strconv.Atoi(parts[2])
			if err != nil {
				return 0, signalAction{}, fmt.Errorf("-on %q: exit code: %w", s, err)
			}
			act.code = code
		}
	default:
		return 0, signalAction{}, fmt.Errorf("-on %q: action must be exit or ignore", s)
	}
	return syscall.Signal(num), act, nil
}

// trappable lists the signals the workload always handles (and so reports), besides those named
// by -on. Synchronous signals belong to the Go runtime, SIGCHLD and SIGURG are noise.
func trappable() []os.Signal {
	skip := map[string]bool{"SIGKILL": true, "SIGSTOP": true, "SIGCHLD": true, "SIGURG": true,
		"SIGSEGV": true, "SIGBUS": true, "SIGFPE": true, "SIGILL": true, "SIGTRAP": true}
	var out []os.Signal
	for _, name := range v1alpha1.SignalNames() {
		if skip[name] {
			continue
		}
		n, _ := v1alpha1.SignalNumber(name)
		out = append(out, syscall.Signal(n))
	}
	return out
}

// signalName names a signal the way the API does.
func signalName(s syscall.Signal) string {
	if n := v1alpha1.SignalName(int32(s)); n != "" {
		return n
	}
	return fmt.Sprintf("SIG%d", int(s))
}

// countInstance appends a line to the counter file and returns how many lines it now has.
func countInstance(path string) (int, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return 0, fmt.Errorf("open counter: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString(strconv.Itoa(os.Getpid()) + "\n"); err != nil {
		return 0, fmt.Errorf("append to counter: %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read counter: %w", err)
	}
	return strings.Count(string(data), "\n"), nil
}

// plan returns what this instance does: exit with a code after the delay, or loop.
func (c *workloadConfig) plan(instance int) (loop bool, code int) {
	if len(c.codes) == 0 || instance < 1 {
		return c.loop, c.exitCode
	}
	i := min(instance, len(c.codes)) - 1
	if c.codes[i] == "loop" {
		return true, c.exitCode
	}
	code, _ = strconv.Atoi(c.codes[i]) // validated by parseWorkload
	return false, code
}

// runWorkload is `podspec-probe run`. It returns only on a usage error or when it exits through
// its plan; exits are always preceded by an acknowledged exit event.
func runWorkload(args []string) (int, error) {
	c, err := parseWorkload(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, nil
		}
		return 2, err
	}
	// Trap before anything else, so that no signal finds the default action.
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, trappable()...)
	for s := range c.on {
		signal.Notify(sigs, s)
	}

	em := newEmitter(c.socket, c.name, probe.RoleWorkload, "")
	if c.counter != "" {
		n, err := countInstance(c.counter)
		if err != nil {
			fmt.Fprintln(os.Stderr, "podspec-probe:", err)
		}
		em.instance = n
	}
	// Listening before the start report: a handler sent after it finds the ports open.
	serveOrExit(c.serve, em)
	em.emit(probe.Event{Type: probe.TypeStart})

	fresh, writable := markRootfs()
	// The report reads files as they were when the instance started, before its own writes.
	var rep *probe.Report
	if c.report {
		rep = gatherReport(c.read, c.list, c.stat)
		rep.FreshRootfs, rep.RootfsWritable, rep.RootfsChecked = fresh, writable, true
	}
	for path, content := range c.write {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "podspec-probe: write %s: %v\n", path, err)
		}
	}
	for _, f := range c.fill {
		if err := fillWith(f.path, f.bytes); err != nil {
			fmt.Fprintf(os.Stderr, "podspec-probe: fill %s: %v\n", f.path, err)
		}
	}
	if rep != nil {
		em.emit(probe.Event{Type: probe.TypeReport, Report: rep})
	}
	if c.stdout != "" {
		fmt.Println(c.stdout)
	}
	if c.flood > 0 {
		if err := flood(os.Stdout, c.flood); err != nil {
			fmt.Fprintf(os.Stderr, "podspec-probe: flood: %v\n", err)
			os.Exit(probe.FloodFailed)
		}
	}

	loop, code := c.plan(em.instance)
	var exitTimer, crashTimer, touchTimer, eatTimer, poll <-chan time.Time
	if c.eatBytes > 0 {
		eatTimer = time.After(c.eatAfter)
	}
	var eaten [][]byte
	armed := false
	arm := func() {
		armed = true
		if !loop {
			exitTimer = time.After(c.after)
		}
		if c.crashAfter > 0 {
			crashTimer = time.After(c.crashAfter)
		}
	}
	if allExist(c.waitFor) {
		arm()
	} else {
		ticker := time.NewTicker(10 * time.Millisecond)
		defer ticker.Stop()
		poll = ticker.C
	}
	if len(c.touch) > 0 {
		touchTimer = time.After(c.touchDelay)
	}
	pendingReports := append([]string(nil), c.reportWhen...)
	var reportPoll <-chan time.Time
	if len(pendingReports) > 0 {
		ticker := time.NewTicker(20 * time.Millisecond)
		defer ticker.Stop()
		reportPoll = ticker.C
	}
	for {
		select {
		case <-reportPoll:
			// One more report per trigger file, in the order the files appear.
			for len(pendingReports) > 0 && allExist(pendingReports[:1]) {
				pendingReports = pendingReports[1:]
				em.emit(probe.Event{Type: probe.TypeReport, Report: gatherReport(c.read, c.list, c.stat)})
			}
			if len(pendingReports) == 0 {
				reportPoll = nil
			}
		case <-poll:
			if !armed && allExist(c.waitFor) {
				poll = nil
				arm()
			}
		case <-touchTimer:
			touchTimer = nil
			for _, p := range c.touch {
				touchFile(strings.ReplaceAll(p, "{instance}", strconv.Itoa(em.instance)))
			}
		case <-exitTimer:
			em.exitEvent(probe.TypeExit, code)
			return code, nil
		case <-eatTimer:
			eatTimer = nil
			em.emit(probe.Event{Type: probe.TypeEat})
			if c.eatInChild {
				if err := eatInChild(c.eatBytes); err != nil {
					fmt.Fprintf(os.Stderr, "podspec-probe: the child using memory failed: %v\n", err)
					em.exitEvent(probe.TypeExit, 1)
					return 1, nil
				}
				continue
			}
			eaten = eat(c.eatBytes)
			_ = eaten
		case <-crashTimer:
			ev := probe.Event{Type: probe.TypeCrash, Signal: "SIGSEGV"}
			if c.crashCore != "" || c.crashNoCore {
				ev.Core = prepareCore(c.crashCore != "", c.crashCore)
			}
			em.emit(ev)
			crash()
			return 70, errors.New("still alive after crashing") // not reached when crash works
		case s := <-sigs:
			sig := s.(syscall.Signal)
			act := c.on[sig]
			action := "ignore"
			if act.exit {
				action = "exit"
			}
			em.emit(probe.Event{Type: probe.TypeSignal, Signal: signalName(sig), Action: action})
			if act.exit {
				lingerThenExit(em, sigs, act)
				return act.code, nil
			}
		}
	}
}

// eat allocates n bytes in 1 MiB chunks and writes every page, so the memory is really used.
func eat(n int64) [][]byte {
	const chunk = 1 << 20
	var out [][]byte
	for used := int64(0); used < n; used += chunk {
		b := make([]byte, chunk)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		out = append(out, b)
	}
	return out
}

// eatInChild runs `podspec-probe eat -bytes n` as a child process and waits for it: the
// memory is used by another process of the container than its main process.
func eatInChild(n int64) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "eat", "-bytes", strconv.FormatInt(n, 10))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// runEat is `podspec-probe eat`: allocate and touch -bytes of memory, then exit 0.
func runEat(args []string) (int, error) {
	fs := flag.NewFlagSet("podspec-probe eat", flag.ContinueOnError)
	n := fs.Int64("bytes", 0, "bytes of memory to allocate and touch")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	eat(*n)
	return 0, nil
}

// allExist reports whether every path exists.
func allExist(paths []string) bool {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	return true
}

// lingerThenExit waits out the linger time, still reporting signals (and ignoring them), then
// reports the exit.
func lingerThenExit(em *emitter, sigs <-chan os.Signal, act signalAction) {
	done := time.After(act.linger)
	for {
		select {
		case s := <-sigs:
			em.emit(probe.Event{Type: probe.TypeSignal, Signal: signalName(s.(syscall.Signal)), Action: "ignore"})
		case <-done:
			em.exitEvent(probe.TypeExit, act.code)
			return
		}
	}
}

// markRootfs reports whether the root filesystem is fresh (no marker from an earlier instance)
// and leaves the marker for the next one.
func markRootfs() (fresh, writable bool) {
	_, err := os.Stat(rootfsMarker)
	fresh = errors.Is(err, os.ErrNotExist)
	writable = os.WriteFile(rootfsMarker, []byte(strconv.Itoa(os.Getpid())), 0o644) == nil
	return fresh, writable
}

func touchFile(path string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "podspec-probe: touch %s: %v\n", path, err)
		return
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "podspec-probe: touch %s: %v\n", path, err)
	}
}

// flood writes n bytes to w in numbered lines of probe.FloodLine bytes (the last one may be
// shorter): "00000000 xxx…\n", "00000001 xxx…\n", … so that a reader can tell which survived.
func flood(w io.Writer, n int64) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	pad := strings.Repeat("x", probe.FloodLine)
	for i := int64(0); n > 0; i++ {
		line := fmt.Sprintf("%08d %s", i, pad)[:min(int64(probe.FloodLine), n)-1] + "\n"
		if _, err := bw.WriteString(line); err != nil {
			return err
		}
		n -= int64(len(line))
	}
	return bw.Flush()
}

// fillFile is a -fill file: its path and size.
type fillFile struct {
	path  string
	bytes int64
}

// fillWith writes a file of n bytes at path, in blocks of a non-zero pattern, so that the file
// takes n bytes of disk.
func fillWith(path string, n int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	block := []byte(strings.Repeat("podspec ", 8192))
	for n > 0 {
		k := min(n, int64(len(block)))
		if _, err := f.Write(block[:k]); err != nil {
			f.Close()
			return err
		}
		n -= k
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
