// Command peers times podspec validate against other validators side by side, on the same
// generated pod manifests (package bench/podgen) and the same schema (podspec's generated
// schema/pod.json): as one file per manifest and as one multi-document stream, at each size.
// Runs alternate (every tool once per round, rounds repeated), and the report gives each tool's
// wall time (min/median/max), peak RSS and, per round, its time divided by podspec's in the same
// round (min/median/max): ratios from one run are comparable on a shared machine where absolute
// times are not. bench/peers.sh installs the peers and runs it:
//
//	go run ./bench/peers -podspec BIN -kubeconform BIN -ajv BIN -cue BIN -schema schema/pod.json
//
// It also measures the floor: reading every byte (floor-read), and reading plus cutting and
// parsing every document into the position-preserving tree and the value tree, the part of
// podspec validate before any check (floor-parse), with as many workers as podspec uses. Each
// runs as a child process (this program, re-executed) so it is timed like the tools.
//
// Peak RSS is each tool's own, as GNU time reports it (package bench/internal/timing says why).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"podspec.dev/podspec/bench/internal/host"
	"podspec.dev/podspec/bench/internal/timing"
	"podspec.dev/podspec/bench/podgen"
	"podspec.dev/podspec/kubernetes"
	"podspec.dev/podspec/manifest"
)

func main() {
	if len(os.Args) == 3 && (os.Args[1] == "floor-read" || os.Args[1] == "floor-parse") {
		if err := floor(os.Args[1], os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "peers:", err)
			os.Exit(1)
		}
		return
	}
	var c config
	flag.StringVar(&c.podspec, "podspec", "", "podspec binary (required)")
	flag.StringVar(&c.before, "podspec-before", "", "another podspec binary (an earlier build), timed as the tool podspec-before in the same rounds (skipped when empty)")
	flag.StringVar(&c.kubeconform, "kubeconform", "", "kubeconform binary (skipped when empty)")
	flag.StringVar(&c.ajv, "ajv", "", "ajv-cli binary (skipped when empty)")
	flag.StringVar(&c.cue, "cue", "", "cue binary (skipped when empty)")
	flag.StringVar(&c.schema, "schema", "schema/pod.json", "the Pod JSON Schema every tool is given (-kind pod)")
	flag.StringVar(&c.kind, "kind", "pod", "manifests to generate: pod (podspec Pods) or deployment (Kubernetes apps/v1 Deployments, with a strict schema generated from the Kubernetes API types podspec checks them with)")
	flag.StringVar(&c.work, "work", "", "directory for the generated manifests (default: a temporary one, removed)")
	sizes := flag.String("sizes", "1000,10000,100000", "numbers of manifests")
	shapes := flag.String("shapes", "files,stream", "files (one per manifest), stream (one multi-document file)")
	flag.IntVar(&c.runs, "runs", 3, "rounds; every tool runs once per round")
	flag.IntVar(&c.cueMax, "cue-max", 1000, "largest size cue is run at (its memory grows with the input)")
	flag.BoolVar(&c.floor, "floor", true, "also time reading (floor-read) and parsing (floor-parse) alone")
	flag.Parse()
	if c.podspec == "" || c.runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: peers -podspec BIN [-kubeconform BIN] [-ajv BIN] [-cue BIN] [-sizes N,N] [-runs N]")
		os.Exit(2)
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "peers: bad size %q\n", s)
			os.Exit(2)
		}
		c.sizes = append(c.sizes, n)
	}
	c.shapes = strings.Split(*shapes, ",")
	if err := c.run(); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

type config struct {
	podspec, before, kubeconform, ajv, cue string
	schema, work, kind                     string
	sizes                                  []int
	shapes                                 []string
	runs, cueMax                           int
	floor                                  bool
}

// tool is one command line to time on one input.
type tool struct {
	name string
	args []string
}

func (c *config) run() error {
	work := c.work
	if work == "" {
		d, err := os.MkdirTemp("", "podspec-peers-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	}
	schemas := filepath.Join(work, "schemas")
	if err := os.MkdirAll(schemas, 0o755); err != nil {
		return err
	}
	var schema []byte
	var err error
	switch c.kind {
	case "pod":
		schema, err = os.ReadFile(c.schema)
	case "deployment":
		schema, err = kubernetes.JSONSchema("Deployment")
	default:
		err = fmt.Errorf("unknown kind %q (pod or deployment)", c.kind)
	}
	if err != nil {
		return err
	}
	// kubeconform finds a kind's schema through a template; {{ .ResourceKind }} is "pod" or
	// "deployment".
	schemaFile := filepath.Join(schemas, c.kind+".json")
	if err := os.WriteFile(schemaFile, schema, 0o644); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	hostname, _ := os.Hostname()
	fmt.Printf("date: %s\nhost: %s, %d CPUs (GOMAXPROCS %d), %s\nload average before: %s\nrounds: %d (every tool once per round, in turn)\nmanifests: %s\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), hostname, runtime.NumCPU(), runtime.GOMAXPROCS(0), cpuModel(), host.Loadavg(), c.runs, c.kind)

	type key struct {
		size  int
		shape string
	}
	inputs := map[key]string{}
	for _, n := range c.sizes {
		for _, shape := range c.shapes {
			p, err := generate(work, n, shape, c.kind)
			if err != nil {
				return err
			}
			inputs[key{n, shape}] = p
		}
	}
	tools := func(n int, shape, input string) []tool {
		podspec := func(bin string) []string {
			return []string{bin, "validate", "--max-documents", strconv.Itoa(n), "--max-bytes", strconv.Itoa(n * 4096), input}
		}
		ts := []tool{{"podspec", podspec(c.podspec)}}
		if c.before != "" {
			ts = append(ts, tool{"podspec-before", podspec(c.before)})
		}
		if c.kubeconform != "" {
			ts = append(ts, tool{"kubeconform", []string{c.kubeconform, "-summary", "-schema-location", filepath.Join(schemas, "{{ .ResourceKind }}.json"), input}})
		}
		if c.ajv != "" && shape == "files" { // ajv-cli reads one document per file
			ts = append(ts, tool{"ajv", []string{c.ajv, "validate", "--spec=draft2020", "-c", "ajv-formats", "-s", schemaFile, "-d", filepath.Join(input, "*.yaml")}})
		}
		if c.cue != "" && n <= c.cueMax {
			data := []string{input}
			if shape == "files" {
				data, _ = filepath.Glob(filepath.Join(input, "*.yaml"))
			}
			args := append(append([]string{c.cue, "vet"}, data...), "jsonschema:", schemaFile)
			ts = append(ts, tool{"cue", args})
		}
		if c.floor {
			ts = append(ts, tool{"floor-read", []string{self, "floor-read", input}}, tool{"floor-parse", []string{self, "floor-parse", input}})
		}
		return ts
	}
	// A first, untimed pass at the smallest size: every tool must accept the (valid) manifests,
	// or its times mean nothing (every timed run is checked too). The inputs were just written,
	// so they are in the page cache for every tool alike.
	for _, n := range c.sizes[:1] {
		for _, shape := range c.shapes {
			for _, t := range tools(n, shape, inputs[key{n, shape}]) {
				if _, err := timing.Run(t.args); err != nil {
					return fmt.Errorf("%s on %d %s: %w", t.name, n, shape, err)
				}
			}
		}
	}
	results := map[key]map[string][]timing.Sample{}
	for round := range c.runs {
		for _, n := range c.sizes {
			for _, shape := range c.shapes {
				k := key{n, shape}
				if results[k] == nil {
					results[k] = map[string][]timing.Sample{}
				}
				ts := tools(n, shape, inputs[k])
				if round%2 == 1 {
					slices.Reverse(ts) // nobody always runs first, right after another tool's I/O
				}
				for _, t := range ts {
					s, err := timing.Run(t.args)
					if err != nil {
						return fmt.Errorf("%s on %d %s: %w", t.name, n, shape, err)
					}
					results[k][t.name] = append(results[k][t.name], s)
				}
			}
		}
		fmt.Fprintf(os.Stderr, "round %d of %d done\n", round+1, c.runs)
	}

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "manifests\tshape\ttool\twall s min\tmedian\tmax\tCPU s median\tpeak RSS MB median\tmax\ttool/podspec wall min\tmedian\tmax\ttool/podspec CPU median\t")
	for _, n := range c.sizes {
		for _, shape := range c.shapes {
			k := key{n, shape}
			ps := results[k]["podspec"]
			for _, t := range tools(n, shape, inputs[k]) {
				ss := results[k][t.name]
				walls := timing.Of(ss, func(s timing.Sample) float64 { return s.Wall.Seconds() })
				cpus := timing.Of(ss, func(s timing.Sample) float64 { return s.CPU.Seconds() })
				rss := timing.Of(ss, func(s timing.Sample) float64 { return float64(s.MaxRSSKB) / 1024 })
				var ratios, cpuRatios []float64
				for i := range ss {
					ratios = append(ratios, ss[i].Wall.Seconds()/ps[i].Wall.Seconds())
					cpuRatios = append(cpuRatios, ss[i].CPU.Seconds()/ps[i].CPU.Seconds())
				}
				_, crmed, _ := timing.Stats(cpuRatios)
				rmin, rmed, rmax := timing.Stats(ratios)
				wmin, wmed, wmax := timing.Stats(walls)
				_, cmed, _ := timing.Stats(cpus)
				_, mmed, mmax := timing.Stats(rss)
				fmt.Fprintf(tw, "%d\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.0f\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t\n",
					n, shape, t.name, wmin, wmed, wmax, cmed, mmed, mmax, rmin, rmed, rmax, crmed)
			}
		}
	}
	tw.Flush()
	// The linearity target: the largest stream's time and memory against the stream ten times
	// smaller, in the same run.
	for _, n := range c.sizes {
		small, big := results[key{n, "stream"}]["podspec"], results[key{n * 10, "stream"}]["podspec"]
		if small == nil || big == nil {
			continue
		}
		_, ws, _ := timing.Stats(timing.Of(small, func(s timing.Sample) float64 { return s.Wall.Seconds() }))
		_, wb, _ := timing.Stats(timing.Of(big, func(s timing.Sample) float64 { return s.Wall.Seconds() }))
		_, cs, _ := timing.Stats(timing.Of(small, func(s timing.Sample) float64 { return s.CPU.Seconds() }))
		_, cb, _ := timing.Stats(timing.Of(big, func(s timing.Sample) float64 { return s.CPU.Seconds() }))
		_, ms, _ := timing.Stats(timing.Of(small, func(s timing.Sample) float64 { return float64(s.MaxRSSKB) }))
		_, mb, _ := timing.Stats(timing.Of(big, func(s timing.Sample) float64 { return float64(s.MaxRSSKB) }))
		fmt.Printf("\npodspec, stream of %d against %d: %.2fx the wall time, %.2fx the CPU time, %.2fx the peak RSS (medians)\n",
			n*10, n, wb/ws, cb/cs, mb/ms)
	}
	fmt.Printf("load average after: %s\n", host.Loadavg())
	return nil
}

// generate writes n manifests as files (DIR/pod-NNNNN.yaml) or one stream (a file of n
// documents) once per work directory, and returns the path to validate.
func generate(work string, n int, shape, kind string) (string, error) {
	gen := func(i int) string { return podgen.Pod(i, false) }
	if kind == "deployment" {
		gen = podgen.Deployment
	}
	work = filepath.Join(work, kind)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", err
	}
	switch shape {
	case "files":
		dir := filepath.Join(work, fmt.Sprintf("files-%d", n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		for i := range n {
			name := filepath.Join(dir, fmt.Sprintf("pod-%06d.yaml", i))
			if err := os.WriteFile(name, []byte(gen(i)), 0o644); err != nil {
				return "", err
			}
		}
		return dir, nil
	case "stream":
		name := filepath.Join(work, fmt.Sprintf("stream-%d.yaml", n))
		f, err := os.Create(name)
		if err != nil {
			return "", err
		}
		w := bufio.NewWriter(f)
		for i := range n {
			if i > 0 {
				w.WriteString("---\n")
			}
			w.WriteString(gen(i))
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return "", err
		}
		return name, f.Close()
	}
	return "", fmt.Errorf("unknown shape %q", shape)
}

// floor reads every manifest under path (a file, or a directory of *.yaml) and, for
// floor-parse, cuts and decodes every document too, with GOMAXPROCS workers: what podspec
// validate costs before any check.
func floor(mode, path string) error {
	var names []string
	if st, err := os.Stat(path); err != nil {
		return err
	} else if st.IsDir() {
		names, _ = filepath.Glob(filepath.Join(path, "*.yaml"))
	} else {
		names = []string{path}
	}
	lim := manifest.DefaultLimits()
	lim.MaxBytes, lim.MaxDocuments = 1<<40, 1<<30
	segs := make(chan manifest.Segment, 64)
	var wg sync.WaitGroup
	var mu sync.Mutex
	docs := 0
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for s := range segs {
				d, _ := s.Decode(lim)
				n += len(d)
			}
			mu.Lock()
			docs += n
			mu.Unlock()
		}()
	}
	var total int64
	if mode == "floor-read" {
		buf := make([]byte, 64<<10)
		for _, name := range names {
			f, err := os.Open(name)
			if err != nil {
				return err
			}
			n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buf)
			f.Close()
			if err != nil {
				return err
			}
			total += n
		}
		close(segs)
		wg.Wait()
		return nil
	}
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		if fi, err := f.Stat(); err == nil && fi.Size() <= 1<<20 {
			// Small files as podspec reads them: whole, then cut.
			data, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				return err
			}
			ss, _ := manifest.Split(name, data, lim)
			for _, s := range ss {
				total += int64(len(s.Data))
				segs <- s
			}
			continue
		}
		st := manifest.NewStream(name, f, lim)
		for {
			s, ok := st.Next()
			if !ok {
				break
			}
			total += int64(len(s.Data))
			segs <- s
		}
		f.Close()
		if err := st.Err(); err != nil {
			return err
		}
	}
	close(segs)
	wg.Wait()
	if docs == 0 && total > 0 {
		return errors.New("no documents decoded")
	}
	return nil
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
