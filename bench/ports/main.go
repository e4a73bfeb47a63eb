// Command ports measures what the reference runtime's network probes and published ports cost
// (issue 32), side by side in one run, and prints a Markdown report:
//
//   - probe overhead: two pods run at once, each a busybox httpd on its loopback; one has three
//     httpGet probes (startup, readiness, liveness) every second, the other none. Over -window
//     after both are Ready, each pod's supervisor CPU time (user + system, /proc/PID/stat), in
//     -rounds rounds that alternate which pod starts first;
//   - a published port: a pod serving a small page and a -size MiB file with busybox httpd on its
//     loopback, published on 127.0.0.1. Connection latency (connect, GET the small page, read it
//     to the end; -n requests, one at a time) and throughput (GET the file; -rounds times), each
//     through the published port and through a connection made inside the pod's network
//     namespace (sandbox.DialIn, as the runtime's own probes connect), alternated request by
//     request.
//
// Usage (as root, runc and busybox-static installed; podspec-supervisor built beside podspec):
//
//	go build -o bin/ ./cmd/podspec ./cmd/podspec-supervisor && go run ./bench/ports -podspec bin/podspec
//
// It never asserts on times; it reports them. Test traffic goes to 127.0.0.1 and into the
// pod's own namespace only.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/bench/internal/host"
	"podspec.dev/podspec/bench/internal/podroot"
	"podspec.dev/podspec/bench/internal/timing"
	"podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/oci"
	"podspec.dev/podspec/reference/sandbox"
	"podspec.dev/podspec/reference/store"
)

func main() {
	var c config
	flag.StringVar(&c.bin, "podspec", "bin/podspec", "podspec binary")
	flag.DurationVar(&c.window, "window", 60*time.Second, "how long each probe round measures the supervisors' CPU")
	flag.IntVar(&c.rounds, "rounds", 3, "probe rounds, and throughput transfers per path")
	flag.IntVar(&c.n, "n", 500, "latency requests per path")
	flag.IntVar(&c.sizeMiB, "size", 64, "size of the file fetched for throughput, MiB")
	flag.Parse()
	if err := c.run(); err != nil {
		fmt.Fprintln(os.Stderr, "ports:", err)
		os.Exit(1)
	}
}

type config struct {
	bin       string
	window    time.Duration
	rounds, n int
	sizeMiB   int
	work, img string
	root      podroot.Root
}

// httpPort is where every pod's httpd listens, on the pod's loopback.
const httpPort = 8080

// podManifest is a pod of one busybox httpd on the pod's loopback serving /www, with a small
// page and a sizeMiB file, and the given probes (YAML lines under the container, or "").
func (c *config) podManifest(name, probes string) (string, error) {
	cmd := fmt.Sprintf("mkdir -p /www && echo ok > /www/small && dd if=/dev/zero of=/www/big bs=1048576 count=%d 2>/dev/null && exec httpd -f -p 127.0.0.1:%d -h /www", c.sizeMiB, httpPort)
	text := fmt.Sprintf(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: %s}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
    - name: web
      image: "oci:%s"
      command: [sh, -c, %q]
      ports: [{name: http, containerPort: %d}]
%s`, name, c.img, cmd, httpPort, probes)
	path := filepath.Join(c.work, name+".yaml")
	return path, os.WriteFile(path, []byte(text), 0o644)
}

// threeProbes are a startup, a readiness and a liveness probe, httpGet every second.
const threeProbes = `      startupProbe: {httpGet: {path: /small, port: http}, periodSeconds: 1, failureThreshold: 30}
      readinessProbe: {httpGet: {path: /small, port: http}, periodSeconds: 1}
      livenessProbe: {httpGet: {path: /small, port: http}, periodSeconds: 1}
`

// readyProbe is the one probe the published-port pod needs to say when httpd answers.
const readyProbe = `      readinessProbe: {httpGet: {path: /small, port: http}, periodSeconds: 1}
`

func (c *config) run() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "podspec-ports-")
	if err != nil {
		return err
	}
	c.work, c.img = work, filepath.Join(work, "busybox")
	c.root = podroot.Root{Bin: c.bin, Dir: filepath.Join(work, "root")}
	defer func() {
		// Whatever happened, no pod outlives the run: remove them before their directories.
		c.root.RemoveAll()
		os.RemoveAll(work)
	}()
	if _, err := ocilayout.Build(context.Background(), c.img, ocilayout.BuildOptions{Busybox: true}); err != nil {
		return err
	}
	hostname, _ := os.Hostname()
	fmt.Printf("date: %s\nhost: %s, %d CPUs, kernel %s\nload average before: %s\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), hostname, host.NumCPU(), host.Kernel(), host.Loadavg())
	if err := c.probeOverhead(); err != nil {
		return err
	}
	if err := c.publishedPort(); err != nil {
		return err
	}
	fmt.Printf("\nload average after: %s\n", host.Loadavg())
	return nil
}

// readyState reads a pod's state once it is Ready (or, with running, once its container runs),
// or fails after a minute.
func (c *config) readyState(name string, running bool) (*store.State, error) {
	s, err := store.Open(c.root.Dir)
	if err != nil {
		return nil, err
	}
	p, err := s.Pod(name)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := p.ReadState()
		if err != nil {
			return nil, err
		}
		cs := st.Pod.Status.ContainerStatuses
		if len(cs) == 1 && cs[0].Ready || running && st.Containers["web"].Running {
			return st, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("pod %s not Ready after a minute (phase %s)", name, st.Pod.Status.Phase)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cpuTicks is a process's user + system time in clock ticks (/proc/PID/stat, fields 14 and 15),
// which counts its exited threads too.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: the fields start after its last ')'.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	return u + s, errors.Join(err1, err2)
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's times (100 on Linux).
const clockTicks = 100

func (c *config) probeOverhead() error {
	probed, err := c.podManifest("probed", threeProbes)
	if err != nil {
		return err
	}
	plain, err := c.podManifest("plain", "")
	if err != nil {
		return err
	}
	type result struct{ probed, plain float64 } // CPU ms per second of window
	var rs []result
	for round := range c.rounds {
		order := []struct{ name, manifest string }{{"probed", probed}, {"plain", plain}}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		pids := map[string]int{}
		for _, p := range order {
			if err := c.root.Podspec("run", "--detach", p.manifest); err != nil {
				return err
			}
		}
		for _, p := range order {
			st, err := c.readyState(p.name, p.name == "plain")
			if err != nil {
				return err
			}
			pids[p.name] = st.Supervisor.PID
		}
		before := map[string]int64{}
		for name, pid := range pids {
			if before[name], err = cpuTicks(pid); err != nil {
				return err
			}
		}
		time.Sleep(c.window)
		var r result
		for name, pid := range pids {
			after, err := cpuTicks(pid)
			if err != nil {
				return err
			}
			ms := float64(after-before[name]) * 1000 / clockTicks / c.window.Seconds()
			if name == "probed" {
				r.probed = ms
			} else {
				r.plain = ms
			}
		}
		rs = append(rs, r)
		for _, p := range order {
			if err := c.root.Podspec("rm", "--force", p.name); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "probe round %d of %d: %.2f and %.2f CPU ms/s\n", round+1, c.rounds, r.probed, r.plain)
	}
	fmt.Printf("## Probe overhead (%d rounds of %s)\n\n", c.rounds, c.window)
	fmt.Println("Supervisor CPU time per second of wall time: a pod of one busybox httpd with three httpGet probes every second (startup, readiness, liveness; the startup probe stops once it succeeded, so two checks a second are measured) against the same pod with none.")
	fmt.Println()
	fmt.Println("| round | 3 probes (CPU ms/s) | no probe (CPU ms/s) | per probe check (CPU ms) |")
	fmt.Println("|---|---|---|---|")
	var perCheck []float64
	for i, r := range rs {
		d := (r.probed - r.plain) / 2
		perCheck = append(perCheck, d)
		fmt.Printf("| %d | %.2f | %.2f | %.2f |\n", i+1, r.probed, r.plain, d)
	}
	lo, med, hi := timing.Stats(perCheck)
	fmt.Printf("\nOne httpGet probe check costs the supervisor %.2f ms of CPU (median; %.2f–%.2f), measured in %d ms ticks over each window.\n\n", med, lo, hi, 1000/clockTicks)
	return nil
}

func (c *config) publishedPort() error {
	manifest, err := c.podManifest("published", readyProbe)
	if err != nil {
		return err
	}
	hostPort, err := framework.FreeLoopbackPort()
	if err != nil {
		return err
	}
	if err := c.root.Podspec("run", "--detach", "--publish", fmt.Sprintf("%d:%d", hostPort, httpPort), manifest); err != nil {
		return err
	}
	st, err := c.readyState("published", false)
	if err != nil {
		return err
	}
	// The pod's sandbox record names its pinned namespaces (reference/backend's sandboxState).
	var sb struct {
		Namespaces map[string]string `json:"namespaces"`
	}
	if err := json.Unmarshal(st.Sandbox, &sb); err != nil {
		return fmt.Errorf("the pod's sandbox record: %w", err)
	}
	netns := sb.Namespaces[oci.NamespaceNetwork]
	if netns == "" {
		return errors.New("the pod's sandbox record names no network namespace")
	}
	published := fmt.Sprintf("127.0.0.1:%d", hostPort)
	inside := fmt.Sprintf("127.0.0.1:%d", httpPort)
	paths := []struct {
		name string
		dial func() (net.Conn, error)
	}{
		{"published port (127.0.0.1:" + strconv.Itoa(hostPort) + ")", func() (net.Conn, error) { return net.Dial("tcp", published) }},
		{"inside the pod's namespace", func() (net.Conn, error) {
			return sandbox.DialIn(context.Background(), netns, "tcp", inside)
		}},
	}
	latency := make([][]float64, len(paths))
	for i := range c.n {
		for j := range paths {
			k := (i + j) % len(paths) // alternate which path goes first
			t0 := time.Now()
			n, err := get(paths[k].dial, "/small")
			if err != nil || n != 3 {
				return fmt.Errorf("%s: GET /small: %d bytes, %v", paths[k].name, n, err)
			}
			latency[k] = append(latency[k], float64(time.Since(t0).Microseconds()))
		}
	}
	throughput := make([][]float64, len(paths))
	for i := range c.rounds {
		for j := range paths {
			k := (i + j) % len(paths)
			t0 := time.Now()
			n, err := get(paths[k].dial, "/big")
			if err != nil || n != int64(c.sizeMiB)<<20 {
				return fmt.Errorf("%s: GET /big: %d bytes, %v", paths[k].name, n, err)
			}
			throughput[k] = append(throughput[k], float64(n)/(1<<20)/time.Since(t0).Seconds())
		}
	}
	fmt.Printf("## A published port\n\nbusybox httpd on the pod's loopback; %d requests of a 3-byte page, one connection each, and %d transfers of %d MiB, per path, alternated.\n\n", c.n, c.rounds, c.sizeMiB)
	fmt.Println("| path | connect + GET, µs (min / median / p90) | throughput, MiB/s (min / median / max) |")
	fmt.Println("|---|---|---|")
	latMed, tpMed := make([]float64, len(paths)), make([]float64, len(paths))
	for k, p := range paths {
		var lo, tlo, thi float64
		lo, latMed[k], _ = timing.Stats(latency[k])
		tlo, tpMed[k], thi = timing.Stats(throughput[k])
		fmt.Printf("| %s | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f |\n", p.name, lo, latMed[k], p90(latency[k]), tlo, tpMed[k], thi)
	}
	fmt.Printf("\nThrough the published port: %.2f× the latency and %.2f× the throughput of a connection made inside the namespace (medians).\n", latMed[0]/latMed[1], tpMed[0]/tpMed[1])
	return c.root.Podspec("rm", "--force", "published")
}

// get sends an HTTP/1.0 GET of path over a new connection and returns the body's length.
func get(dial func() (net.Conn, error), path string) (int64, error) {
	conn, err := dial()
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.0\r\nHost: bench\r\n\r\n", path); err != nil {
		return 0, err
	}
	r := bufio.NewReaderSize(conn, 64<<10)
	status, err := r.ReadString('\n')
	if err != nil {
		return 0, err
	}
	if !strings.Contains(status, " 200 ") {
		return 0, fmt.Errorf("status %q", strings.TrimSpace(status))
	}
	for { // headers
		l, err := r.ReadString('\n')
		if err != nil {
			return 0, err
		}
		if l == "\r\n" || l == "\n" {
			break
		}
	}
	return io.Copy(io.Discard, r)
}

// p90 is the 90th percentile.
func p90(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)*9/10]
}
