// Command corpus runs podspec validate beside kubeconform and kubectl-validate over a corpus of
// real Kubernetes manifests (../shared/realworld/corpus, 847 files from 33 public repositories):
// it times the three side by side in alternating rounds, as bench/peers does on generated
// manifests, and compares their verdicts on every document that carries a pod. bench/corpus.sh
// installs the peers and runs it:
//
//	go run ./bench/corpus -corpus DIR -podspec BIN [-kubeconform BIN] [-kubectl-validate BIN] \
//	    [-kubernetes-version 1.30] [-runs 3]
//
// The peers work offline. kubeconform is given the strict JSON Schema podspec derives from its
// Kubernetes types (kubernetes.JSONSchema) for each pod-carrying kind and skips other kinds;
// kubectl-validate uses its built-in OpenAPI documents for -kubernetes-version (v0.0.4, the one
// release the module proxy serves, knows 1.23 to 1.30) and reaches no cluster.
//
// The verdict of a document is "rejected" (an error) or "accepted" (warnings and notes accept).
// Documents are matched by file and position: kubectl-validate numbers every part of a file
// between "---" lines that holds any text, comments alone included (and a blank part of more
// than one line after a "---"), podspec the parts that hold more than comments; a file whose
// parts the two count differently is reported unmatched and left out. kubeconform names each resource's file and kind, and is matched on those in order.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"podspec.dev/podspec/bench/internal/host"
	"podspec.dev/podspec/bench/internal/timing"
	"podspec.dev/podspec/kubernetes"
)

func main() {
	var c config
	flag.StringVar(&c.corpus, "corpus", "", "directory of manifests (required)")
	flag.StringVar(&c.podspec, "podspec", "", "podspec binary (required)")
	flag.StringVar(&c.kubeconform, "kubeconform", "", "kubeconform binary (skipped when empty)")
	flag.StringVar(&c.kubectlValidate, "kubectl-validate", "", "kubectl-validate binary (skipped when empty)")
	flag.StringVar(&c.kubeVersion, "kubernetes-version", "1.30", "Kubernetes version kubectl-validate validates against (and podspec, with -podspec-version)")
	flag.BoolVar(&c.podspecVersion, "podspec-version", false, "pass -kubernetes-version to podspec validate too")
	flag.IntVar(&c.runs, "runs", 3, "timed rounds (0: verdicts only)")
	flag.IntVar(&c.show, "show", 40, "disagreements listed per peer and direction")
	flag.Parse()
	if c.corpus == "" || c.podspec == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: corpus -corpus DIR -podspec BIN [-kubeconform BIN] [-kubectl-validate BIN] [-kubernetes-version V] [-podspec-version] [-runs N]")
		os.Exit(2)
	}
	if err := c.run(); err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		os.Exit(1)
	}
}

type config struct {
	corpus, podspec, kubeconform, kubectlValidate, kubeVersion string
	podspecVersion                                             bool
	runs, show                                                 int
}

// tool is one validator's command line over the whole corpus.
type tool struct {
	name string
	args []string
}

func (c *config) run() error {
	corpus, err := filepath.Abs(c.corpus)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "podspec-corpus-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	podspecArgs := podspecCommand(c.podspec, c.kubeVersion, c.podspecVersion, corpus)
	docs, err := podspecDocs(podspecArgs)
	if err != nil {
		return err
	}
	tools := []tool{{"podspec", podspecArgs}}
	var verdicts []peerVerdicts
	if c.kubeconform != "" {
		schemas := filepath.Join(work, "schemas")
		if err := writeSchemas(schemas, docs); err != nil {
			return err
		}
		args := []string{c.kubeconform, "-strict", "-ignore-missing-schemas", "-output", "json", "-verbose",
			"-schema-location", filepath.Join(schemas, "{{ .ResourceKind }}.json"), corpus}
		tools = append(tools, tool{"kubeconform", args})
		out, err := output(args, 0, 1)
		if err != nil {
			return err
		}
		v, err := readKubeconform(out)
		if err != nil {
			return fmt.Errorf("kubeconform's report: %w", err)
		}
		verdicts = append(verdicts, v)
	}
	if c.kubectlValidate != "" {
		args := kubectlValidateCommand(c.kubectlValidate, c.kubeVersion, corpus)
		tools = append(tools, tool{"kubectl-validate", args})
		v, err := kubectlValidateVerdicts(args)
		if err != nil {
			return err
		}
		verdicts = append(verdicts, v)
	}

	hostname, _ := os.Hostname()
	fmt.Printf("date: %s\nhost: %s, %d CPUs (GOMAXPROCS %d)\nload average before: %s\ncorpus: %s\nKubernetes version of kubectl-validate: %s (podspec: %s)\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), hostname, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		host.Loadavg(), corpus, c.kubeVersion, map[bool]string{true: c.kubeVersion, false: "its default"}[c.podspecVersion])
	if c.runs > 0 {
		if err := timeTools(tools, c.runs); err != nil {
			return err
		}
	}
	pods := 0
	for _, d := range docs {
		if d.pod {
			pods++
		}
	}
	fmt.Printf("\n%d documents, %d carrying a pod (those compared below)\n", len(docs), pods)
	for _, v := range verdicts {
		agree(docs, v).print(corpus, c.show)
	}
	fmt.Printf("load average after: %s\n", host.Loadavg())
	return nil
}

// podspecCommand is podspec validate's command line over the corpus, with JSON output.
func podspecCommand(bin, kubeVersion string, withVersion bool, corpus string) []string {
	args := []string{bin, "validate", "-o", "json"}
	if withVersion {
		args = append(args, "--kubernetes-version", kubeVersion)
	}
	return append(args, corpus)
}

// podspecDocs runs podspec validate and reads its report.
func podspecDocs(args []string) ([]doc, error) {
	out, err := output(args, 0, 1)
	if err != nil {
		return nil, err
	}
	docs, err := readPodspec(out)
	if err != nil {
		return nil, fmt.Errorf("podspec's report: %w", err)
	}
	return docs, nil
}

// kubectlValidateCommand is kubectl-validate's command line over the corpus, offline (its
// built-in documents of kubeVersion), with JSON output.
func kubectlValidateCommand(bin, kubeVersion, corpus string) []string {
	return []string{bin, corpus, "--version", kubeVersion, "-o", "json"}
}

// kubectlValidateVerdicts runs kubectl-validate and reads its report.
func kubectlValidateVerdicts(args []string) (peerVerdicts, error) {
	out, err := output(args, 0, 1)
	if err != nil {
		return peerVerdicts{}, err
	}
	v, err := readKubectlValidate(out)
	if err != nil {
		return peerVerdicts{}, fmt.Errorf("kubectl-validate's report: %w", err)
	}
	return v, nil
}

// output runs args and returns its standard output; an exit status outside ok is an error.
func output(args []string, ok ...int) ([]byte, error) {
	cmd := exec.Command(args[0], args[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && slices.Contains(ok, exit.ExitCode()) {
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, tail(stderr.String(), 2000))
	}
	return out, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// timeTools times every tool over the corpus, runs rounds in turn, and prints each one's times
// and its time divided by podspec's in the same round.
func timeTools(tools []tool, runs int) error {
	samples := map[string][]timing.Sample{}
	for round := range runs {
		ts := slices.Clone(tools)
		if round%2 == 1 {
			slices.Reverse(ts) // nobody always runs first, right after another tool's I/O
		}
		for _, t := range ts {
			s, err := timing.Run(t.args, 0, 1) // 1: errors found, which a corpus has
			if err != nil {
				return err
			}
			samples[t.name] = append(samples[t.name], s)
		}
		fmt.Fprintf(os.Stderr, "round %d of %d done\n", round+1, runs)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tool\twall s min\tmedian\tmax\tCPU s median\tpeak RSS MB median\ttool/podspec wall min\tmedian\tmax\t")
	ps := samples["podspec"]
	for _, t := range tools {
		ss := samples[t.name]
		var ratios []float64
		for i := range ss {
			ratios = append(ratios, ss[i].Wall.Seconds()/ps[i].Wall.Seconds())
		}
		wmin, wmed, wmax := timing.Stats(timing.Of(ss, func(s timing.Sample) float64 { return s.Wall.Seconds() }))
		_, cmed, _ := timing.Stats(timing.Of(ss, func(s timing.Sample) float64 { return s.CPU.Seconds() }))
		_, mmed, _ := timing.Stats(timing.Of(ss, func(s timing.Sample) float64 { return float64(s.MaxRSSKB) / 1024 }))
		rmin, rmed, rmax := timing.Stats(ratios)
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.0f\t%.2f\t%.2f\t%.2f\t\n", t.name, wmin, wmed, wmax, cmed, mmed, rmin, rmed, rmax)
	}
	return tw.Flush()
}

// doc is one document as podspec reported it.
type doc struct {
	file     string
	index    int // podspec's document number in the file
	kind     string
	name     string
	pod      bool     // a pod-carrying kind podspec checked
	rejected bool     // podspec reported an error
	first    string   // podspec's first error, "RULE path: message"
	rules    []string // the rules of all of podspec's findings, warnings included
}

// readPodspec reads podspec validate's JSON report.
func readPodspec(b []byte) ([]doc, error) {
	var r struct {
		Results []struct {
			File     string
			Document int
			Kind     string
			Name     string
			Skipped  string
			Findings []struct {
				Rule, Severity, Message string
				Path                    *string
			}
		}
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	var out []doc
	for _, res := range r.Results {
		d := doc{file: res.File, index: res.Document, kind: res.Kind, name: res.Name,
			pod: res.Skipped == "" && res.Kind != ""}
		for _, f := range res.Findings {
			d.rules = append(d.rules, f.Rule)
			if f.Severity != "error" {
				continue
			}
			if !d.rejected {
				path := ""
				if f.Path != nil {
					path = " " + *f.Path
				}
				d.first = f.Rule + path + ": " + f.Message
			}
			d.rejected = true
		}
		out = append(out, d)
	}
	return out, nil
}

// writeSchemas writes kubeconform's schema of every pod-carrying kind podspec checked in the
// corpus, as DIR/KIND.json (kubeconform's {{ .ResourceKind }} is the kind in lower case).
func writeSchemas(dir string, docs []doc) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	done := map[string]bool{}
	for _, d := range docs {
		if !d.pod || done[d.kind] {
			continue
		}
		done[d.kind] = true
		s, err := kubernetes.JSONSchema(d.kind)
		if err != nil {
			continue // a kind podspec reports at an API version no Kubernetes serves
		}
		if err := os.WriteFile(filepath.Join(dir, strings.ToLower(d.kind)+".json"), s, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// verdict is a peer's answer on one document.
type verdict struct {
	rejected bool
	message  string
}

// peerVerdicts is a peer's answers: by file and the peer's document number, or by file and kind
// in order of appearance (a name may be generated, and is reported differently).
type peerVerdicts struct {
	name   string
	byPart map[string][]verdict    // kubectl-validate: every part with text
	byKind map[[2]string][]verdict // kubeconform: by file and kind, in order
}

// readKubectlValidate reads kubectl-validate -o json: file → one status per part of the file.
func readKubectlValidate(b []byte) (peerVerdicts, error) {
	var r map[string][]struct {
		Status  string
		Message string
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return peerVerdicts{}, err
	}
	v := peerVerdicts{name: "kubectl-validate", byPart: map[string][]verdict{}}
	for file, ss := range r {
		for _, s := range ss {
			v.byPart[file] = append(v.byPart[file], verdict{rejected: s.Status != "Success", message: s.Message})
		}
	}
	return v, nil
}

// readKubeconform reads kubeconform -output json.
func readKubeconform(b []byte) (peerVerdicts, error) {
	var r struct {
		Resources []struct {
			Filename, Kind, Status, Msg string
		}
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return peerVerdicts{}, err
	}
	v := peerVerdicts{name: "kubeconform", byKind: map[[2]string][]verdict{}}
	for _, res := range r.Resources {
		if res.Status == "statusSkipped" {
			continue
		}
		k := [2]string{res.Filename, res.Kind}
		// statusInvalid: the schema refused it; statusError: it could not be read or has no
		// schema (a kind at a version podspec does not model); both reject.
		v.byKind[k] = append(v.byKind[k], verdict{rejected: res.Status != "statusValid", message: res.Msg})
	}
	return v, nil
}

// separator is a line that starts a new YAML document.
var separator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// parts numbers a file's documents both ways: for each part with any text (kubectl-validate's
// numbering), podspec's number of that part, or -1 for a part that holds comments alone.
func parts(path string) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".json") {
		return []int{0}, nil
	}
	var out []int
	n := 0
	for i, p := range separator.Split(string(b), -1) {
		if strings.TrimSpace(p) == "" && (i == 0 || strings.Count(p, "\n") < 2) {
			continue // kubectl-validate numbers a blank part after a "---" when it spans lines
		}
		content := false
		for _, l := range strings.Split(p, "\n") {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
				content = true
			}
		}
		if content {
			out = append(out, n)
			n++
		} else {
			out = append(out, -1)
		}
	}
	return out, nil
}

// agreement is how a peer's verdicts on the pod-carrying documents compare with podspec's.
type agreement struct {
	peer                                 string
	both, neither, onlyPodspec, onlyPeer []doc // onlyPeer's first is the peer's message
	notJudged                            int   // documents the peer gave no verdict on
	inUnmatched, unmatchedFiles          int   // documents left out: their files are numbered differently
}

// agree compares a peer's verdicts with podspec's, document by document.
func agree(docs []doc, v peerVerdicts) agreement {
	type key struct {
		file  string
		index int
	}
	peer := map[key]verdict{}
	unmatched := map[string]bool{}
	if v.byPart != nil {
		for file, vs := range v.byPart {
			ps, err := parts(file)
			if err != nil || len(ps) != len(vs) {
				unmatched[file] = true
				continue
			}
			for i, n := range ps {
				if n >= 0 {
					peer[key{file, n}] = vs[i]
				}
			}
		}
	} else {
		seen := map[[2]string]int{}
		for _, d := range docs {
			k := [2]string{d.file, d.kind}
			if vs := v.byKind[k]; seen[k] < len(vs) {
				peer[key{d.file, d.index}] = vs[seen[k]]
			}
			seen[k]++
		}
	}
	a := agreement{peer: v.name, unmatchedFiles: len(unmatched)}
	for _, d := range docs {
		if !d.pod {
			continue
		}
		if unmatched[d.file] {
			a.inUnmatched++
			continue
		}
		pv, ok := peer[key{d.file, d.index}]
		switch {
		case !ok:
			a.notJudged++
		case d.rejected && pv.rejected:
			a.both = append(a.both, d)
		case !d.rejected && !pv.rejected:
			a.neither = append(a.neither, d)
		case d.rejected:
			a.onlyPodspec = append(a.onlyPodspec, d)
		default:
			d.first = pv.message
			a.onlyPeer = append(a.onlyPeer, d)
		}
	}
	return a
}

// print writes the counts and the first show disagreements of each direction.
func (a agreement) print(corpus string, show int) {
	fmt.Printf("\n== podspec and %s on the pod-carrying documents\n", a.peer)
	fmt.Printf("both reject %d, both accept %d, only podspec rejects %d, only %s rejects %d; not judged by %s %d; in files numbered differently %d (%d files)\n",
		len(a.both), len(a.neither), len(a.onlyPodspec), a.peer, len(a.onlyPeer), a.peer, a.notJudged, a.inUnmatched, a.unmatchedFiles)
	list := func(title string, ds []doc) {
		ds = slices.Clone(ds)
		sort.Slice(ds, func(i, j int) bool { return ds[i].first < ds[j].first })
		fmt.Printf("-- %s (%d), by message:\n", title, len(ds))
		for i, d := range ds {
			if i == show {
				fmt.Printf("   ... and %d more\n", len(ds)-show)
				break
			}
			rel, _ := filepath.Rel(corpus, d.file)
			fmt.Printf("   %s #%d %s %s: %s\n", rel, d.index, d.kind, d.name, oneLine(d.first, 200))
		}
	}
	list("only podspec rejects; podspec's first error", a.onlyPodspec)
	list("only "+a.peer+" rejects; its message", a.onlyPeer)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
