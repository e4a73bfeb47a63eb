// Command mutation runs the mutants that the mutation testing tool gremlins
// (github.com/go-gremlins/gremlins) finds in the reference runtime against the conformance suite
// (issue 17, item 3; docs/mutants.md, "Mutants nobody wrote"). scripts/mutation.sh installs
// gremlins, runs `gremlins unleash --dry-run` over reference/engine and reference/backend (it
// lists every mutation it would make: file, line, column, mutator type) and then this driver:
//
//	mutation -gremlins reference/engine=engine.json,reference/backend=backend.json -src PRISTINE -bin BIN -work DIR \
//	    [-sample N -seed S] [-jobs J] [-slow F] [-out results.json] [-only ID,...]
//
// gremlins runs `go test` of the mutated package itself, and nothing else; the conformance suite
// drives a built runtime through its command line. So the driver takes gremlins' list, applies
// each mutation with gremlins' own token table (tokenMutations in gremlins'
// internal/engine/mappings.go, v0.6.0, copied below: a token at the position gremlins names is
// replaced by the token its mutator type maps it to), and for each mutant:
//
//  1. builds podspec and podspec-supervisor from a copy of the source with the mutation, with
//     -trimpath and an empty build ID, so that a mutation the compiler removes (code behind a
//     constant false condition, a comparison whose result nothing reads) yields a binary
//     byte-identical to the normal build: EQUIVALENT, not run; a mutation that does not compile
//     is NOT VIABLE (gremlins' name);
//  2. runs the conformance specs of the requirements whose code the mutated function is (the
//     table labels below, a Ginkgo label filter such as /^req:(STOP|FORCE)-/) with the normal
//     podspec-conformance as driver and the mutant build as runtime, in a private --root, with a
//     timeout (-timeout, 15 minutes): exit 1 with a failed spec is KILLED, exit 0 LIVED (a
//     survivor), the timeout TIMED OUT (gremlins counts it as killed);
//  3. removes every pod the run left (podspec rm --force), every runc container of its OCI root,
//     every mount left below its root, and the run's directories.
//
// The normal build runs the union of the selected filters once, in the same pool as the mutants;
// a kill counts only with a failed spec that passed there (else BASELINE FAILED), because a
// failure the normal build shares says nothing about the mutant. -filter reruns mutants against
// another filter (a survivor against the requirement its code's comments name). The results (one
// JSON object per mutant, with the failed specs of a killed one) are written to -out as they
// come, so an interrupted run keeps what it measured.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tokenMutations is gremlins v0.6.0's table (internal/engine/mappings.go, Apache-2.0): for each
// mutator type, the token that replaces each token it applies to.
var tokenMutations = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL, token.SUB: token.ADD},
	"CONDITIONALS_BOUNDARY": {token.GEQ: token.GTR, token.GTR: token.GEQ, token.LEQ: token.LSS, token.LSS: token.LEQ},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR, token.LSS: token.GEQ, token.NEQ: token.EQL},
	"INCREMENT_DECREMENT":   {token.DEC: token.INC, token.INC: token.DEC},
	"INVERT_ASSIGNMENTS":    {token.ADD_ASSIGN: token.SUB_ASSIGN, token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN, token.REM_ASSIGN: token.REM_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN},
	"INVERT_BITWISE":        {token.AND: token.OR, token.OR: token.AND, token.XOR: token.AND, token.AND_NOT: token.AND, token.SHL: token.SHR, token.SHR: token.SHL},
	"INVERT_BWASSIGN":       {token.AND_ASSIGN: token.OR_ASSIGN, token.OR_ASSIGN: token.AND_ASSIGN, token.XOR_ASSIGN: token.AND_ASSIGN, token.AND_NOT_ASSIGN: token.AND_ASSIGN, token.SHL_ASSIGN: token.SHR_ASSIGN, token.SHR_ASSIGN: token.SHL_ASSIGN},
	"INVERT_LOGICAL":        {token.LAND: token.LOR, token.LOR: token.LAND},
	"INVERT_LOOPCTRL":       {token.BREAK: token.CONTINUE, token.CONTINUE: token.BREAK},
	"INVERT_NEGATIVES":      {token.SUB: token.ADD},
	"REMOVE_SELF_ASSIGNMENTS": {token.ADD_ASSIGN: token.ASSIGN, token.AND_ASSIGN: token.ASSIGN, token.AND_NOT_ASSIGN: token.ASSIGN,
		token.MUL_ASSIGN: token.ASSIGN, token.OR_ASSIGN: token.ASSIGN, token.QUO_ASSIGN: token.ASSIGN, token.REM_ASSIGN: token.ASSIGN,
		token.SHL_ASSIGN: token.ASSIGN, token.SHR_ASSIGN: token.ASSIGN, token.SUB_ASSIGN: token.ASSIGN, token.XOR_ASSIGN: token.ASSIGN},
}

// Requirement families (ID prefixes of docs/requirements.yaml) whose specs exercise a piece of
// the engine. A mutant runs the specs of its function's families (labels), else its file's.
const (
	famStart  = "INIT|SIDE|MAIN|DEP|HB|HOOK"           // start order, gates, hooks
	famExit   = "EXIT|STAT|RST|MAIN|SIDE|INIT|TIME"    // exits, restarts, back-off, status
	famStop   = "STOP|FORCE|HB|SIDE|MAIN|DL|TIME|HOOK" // the stop sequence and its budget
	famResult = "EXIT|STAT|SIDE|MAIN|DL|FORCE"         // exit policy and pod result
	famDefer  = "DEFER|FORCE"
	famNotify = "NTF|NOTIF"
	famUpdate = "UPD"
	famSup    = "SUP|GC"
	famProbe  = "HOOK|SIDE|HB"
	famImage  = "IMG|SEC|VOL|RES|GC"
)

// labels maps "file.go" (every function of the file) and "file.go:Func" (one function, a
// method by its name) to families.
var labels = map[string]string{
	"defer.go":                       famDefer,
	"duration.go":                    "STOP|DL|RST|TIME|DEFER|NTF",
	"engine.go":                      "EXIT|STAT|STOP|FORCE|DL|INIT|SUP",
	"engine.go:armDeadlineLocked":    "DL|TIME",
	"engine.go:deadline":             "DL|TIME",
	"engine.go:Stop":                 "STOP|FORCE|DL",
	"engine.go:StopOnce":             "STOP|FORCE",
	"engine.go:persistLocked":        famSup,
	"engine.go:retryPersist":         famSup,
	"engine.go:WaitAdopted":          famSup,
	"gate.go":                        "HB|INIT|DEP|SIDE",
	"life.go":                        famProbe + "|INIT|DEP",
	"life.go:adoptInstance":          famSup,
	"life.go:startedUnrecorded":      famSup,
	"life.go:readComm":               famSup,
	"notify.go":                      famNotify,
	"pidfd.go":                       "STOP|FORCE|NTF",
	"reason.go":                      "EXIT|STAT|RST|DEFER|INIT",
	"slot.go":                        famExit,
	"slot.go:buildSlots":             "STAT|INIT|SIDE|MAIN|DEP",
	"slot.go:newStatus":              "STAT|INIT|SIDE|MAIN",
	"slot.go:gateLocked":             famStart,
	"slot.go:skipLocked":             famStart,
	"slot.go:dependencyFailedLocked": famStart,
	"slot.go:startInstance":          famStart + "|IMG|STAT",
	"slot.go:runningLocked":          "STAT|EXIT|HB",
	"slot.go:signal":                 "STOP|FORCE",
	"slot.go:killInstance":           "STOP|FORCE",
	"slot.go:stopSignal":             "STOP|FORCE",
	"stop.go":                        famStop,
	"stop.go:evaluatePolicyLocked":   famResult,
	"stop.go:finish":                 famResult + "|STOP|DEFER",
	"stop.go:resultLocked":           famResult,
	"stop.go:derivedExitCode":        famResult,
	"update.go":                      famUpdate,
	"backend.go":                     famImage + "|RST",
	"held.go":                        famSup + "|STOP|FORCE",
	"sandbox.go":                     famImage,
	"backend.go:Restart":             "RST|IMG|STAT",
	"update.go:UpdateResources":      famUpdate + "|RES",
	"backend.go:reaperExitStatus":    "EXIT|STAT",
	"backend.go:waitExited":          "EXIT|STAT|STOP",
}

type gremlinsReport struct {
	Files []struct {
		Filename  string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

type mutant struct {
	ID       string   `json:"id"` // file:line:col:TYPE
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	Type     string   `json:"type"`
	Func     string   `json:"func"`
	From     string   `json:"from"`
	To       string   `json:"to"`
	Source   string   `json:"source"`   // the mutated line
	Coverage string   `json:"coverage"` // gremlins' status: RUNNABLE (unit tests cover it) or NOT COVERED
	Filter   string   `json:"filter"`
	Status   string   `json:"status"`
	Seconds  int      `json:"seconds"`
	Failed   []string `json:"failed,omitempty"` // the failed specs of a killed mutant
	Detail   string   `json:"detail,omitempty"`
	failed   []failedSpec
}

type failedSpec struct{ name, msg string }

func main() {
	var (
		reports = flag.String("gremlins", "", "gremlins --dry-run JSON reports, comma-separated, each PKGDIR=FILE (PKGDIR: the package gremlins was run on, e.g. reference/engine)")
		src     = flag.String("src", "", "a pristine copy of the module (the mutations' base)")
		binDir  = flag.String("bin", "", "directory with the normal podspec, podspec-supervisor, podspec-conformance and podspec-probe (built -trimpath -ldflags=-buildid=)")
		work    = flag.String("work", "", "work directory (one source copy per job, run directories)")
		sample  = flag.Int("sample", 0, "run N mutants drawn with -seed (0: all)")
		seed    = flag.Uint64("seed", 1, "seed of the sample")
		jobs    = flag.Int("jobs", 2, "mutants at a time")
		slow    = flag.String("slow", "2", "--slow-factor of the conformance runs")
		out     = flag.String("out", "", "results file (JSON, rewritten after every mutant)")
		only    = flag.String("only", "", "run only these mutant IDs (comma-separated), before sampling")
		timeout = flag.Duration("timeout", 15*time.Minute, "a mutant's conformance run longer than this is TIMED OUT")
		filter  = flag.String("filter", "", "run every selected mutant with this label filter instead of its function's (to recheck a survivor against more specs)")
		list    = flag.Bool("list", false, "list the selected mutants and their filters; run nothing")
	)
	flag.Parse()
	if *reports == "" || *src == "" || (!*list && (*binDir == "" || *work == "")) {
		flag.Usage()
		os.Exit(2)
	}
	all, err := load(strings.Split(*reports, ","), *src)
	if err != nil {
		fatal(err)
	}
	sel := all
	if *only != "" {
		want := map[string]bool{}
		for _, id := range strings.Split(*only, ",") {
			want[id] = true
		}
		sel = nil
		for _, m := range all {
			if want[m.ID] {
				sel = append(sel, m)
			}
		}
	}
	r := rand.New(rand.NewPCG(*seed, *seed))
	r.Shuffle(len(sel), func(i, j int) { sel[i], sel[j] = sel[j], sel[i] })
	if *sample > 0 && *sample < len(sel) {
		sel = sel[:*sample]
	}
	if *filter != "" {
		for _, m := range sel {
			m.Filter = *filter
		}
	}
	fmt.Printf("mutation: %d mutants from gremlins, %d selected (seed %d)\n", len(all), len(sel), *seed)
	if *list {
		for _, m := range sel {
			fmt.Printf("%s\t%s\t%s→%s\t%s\t%s\n", m.ID, m.Func, m.From, m.To, m.Filter, m.Source)
		}
		return
	}
	d := &driver{src: *src, bin: *binDir, work: *work, slow: *slow, out: *out, muts: sel, timeout: *timeout}
	d.run(*jobs)
	d.summary()
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mutation:", err)
	os.Exit(2)
}

// load reads gremlins' reports and resolves every mutation: the token at its position (which
// must be one its type maps), the enclosing function and its label filter.
func load(reports []string, src string) ([]*mutant, error) {
	var all []*mutant
	dup := map[string]bool{}
	for _, arg := range reports {
		// PKGDIR=REPORT: gremlins names the files relative to the package it was given.
		pkgDir, path, ok := strings.Cut(arg, "=")
		if !ok {
			pkgDir, path = ".", arg
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var rep gremlinsReport
		if err := json.Unmarshal(data, &rep); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for _, f := range rep.Files {
			f.Filename = filepath.Join(pkgDir, f.Filename)
			text, err := os.ReadFile(filepath.Join(src, f.Filename))
			if err != nil {
				return nil, err
			}
			funcs, err := funcRanges(text)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Filename, err)
			}
			lines := strings.Split(string(text), "\n")
			for _, g := range f.Mutations {
				m := &mutant{File: f.Filename, Line: g.Line, Column: g.Column, Type: g.Type, Coverage: g.Status}
				m.ID = fmt.Sprintf("%s:%d:%d:%s", m.File, m.Line, m.Column, m.Type)
				_, tok, err := tokenAt(text, m.Line, m.Column)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", m.ID, err)
				}
				to, ok := tokenMutations[m.Type][tok]
				if !ok {
					return nil, fmt.Errorf("%s: gremlins' table has no %s for token %s", m.ID, m.Type, tok)
				}
				m.From, m.To = tok.String(), to.String()
				// gremlins lists a unary minus twice (ARITHMETIC_BASE and INVERT_NEGATIVES),
				// one mutation: run it once.
				key := fmt.Sprintf("%s:%d:%d:%s", m.File, m.Line, m.Column, m.To)
				if dup[key] {
					continue
				}
				dup[key] = true
				m.Source = strings.TrimSpace(lines[m.Line-1])
				m.Func = funcAt(funcs, m.Line)
				base := filepath.Base(m.File)
				fam, ok := labels[base+":"+m.Func]
				if !ok {
					fam, ok = labels[base]
				}
				if !ok {
					return nil, fmt.Errorf("%s: no label families for %s", m.ID, base)
				}
				m.Filter = "/^req:(" + fam + ")-/"
				all = append(all, m)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return all, nil
}

type funcRange struct {
	name       string
	start, end int
}

func funcRanges(text []byte) ([]funcRange, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", text, 0)
	if err != nil {
		return nil, err
	}
	var out []funcRange
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			out = append(out, funcRange{fd.Name.Name, fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line})
		}
	}
	return out, nil
}

func funcAt(fs []funcRange, line int) string {
	for _, f := range fs {
		if line >= f.start && line <= f.end {
			return f.name
		}
	}
	return "" // package level (a var initialiser)
}

// tokenAt returns the byte offset and the token at line:column (1-based, columns in bytes, as
// go/token counts them and gremlins reports them).
func tokenAt(text []byte, line, col int) (int, token.Token, error) {
	fset := token.NewFileSet()
	file := fset.AddFile("x.go", -1, len(text))
	var s scanner.Scanner
	s.Init(file, text, nil, 0)
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			return 0, 0, fmt.Errorf("no token at %d:%d", line, col)
		}
		p := fset.Position(pos)
		if p.Line == line && p.Column == col {
			return p.Offset, tok, nil
		}
	}
}

// apply writes the mutated file into dir (a copy of the module) and returns a function that
// restores it.
func apply(dir string, m *mutant) (func() error, error) {
	path := filepath.Join(dir, m.File)
	orig, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	off, tok, err := tokenAt(orig, m.Line, m.Column)
	if err != nil {
		return nil, err
	}
	mut := tokenMutations[m.Type][tok]
	var b bytes.Buffer
	b.Write(orig[:off])
	b.WriteString(mut.String())
	b.Write(orig[off+len(tok.String()):])
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return func() error { return os.WriteFile(path, orig, 0o644) }, nil
}

type driver struct {
	src, bin, work, slow, out string
	timeout                   time.Duration
	muts                      []*mutant
	mu                        sync.Mutex
	baseFailed                map[string]bool // spec name → failed against the normal build
	baseOK                    bool
}

// run runs the normal build's baseline (one conformance run over the union of the selected
// filters) and the mutants, jobs at a time in one pool, the baseline first.
func (d *driver) run(jobs int) {
	seen := map[string]bool{}
	var union []string
	for _, m := range d.muts {
		if !seen[m.Filter] {
			seen[m.Filter] = true
			union = append(union, m.Filter)
		}
	}
	copies := make([]string, jobs)
	for w := range copies {
		copies[w] = filepath.Join(d.work, fmt.Sprintf("src-%d", w))
		if err := exec.Command("cp", "-a", d.src, copies[w]).Run(); err != nil {
			fatal(fmt.Errorf("copy the source: %w", err))
		}
	}
	pool(jobs, len(d.muts)+1, func(w, i int) {
		if i == 0 {
			filter := strings.Join(union, " || ")
			rc, secs, failed, detail := d.conformance(context.Background(), filepath.Join(d.work, "baseline"), filepath.Join(d.bin, "podspec"), filter)
			d.mu.Lock()
			defer d.mu.Unlock()
			d.baseOK = rc == 0
			d.baseFailed = map[string]bool{}
			for _, f := range failed {
				d.baseFailed[f.name] = true
			}
			fmt.Printf("baseline (the normal build, %d filters): exit %d, %d specs failed, %ds %s\n", len(union), rc, len(failed), secs, detail)
			for _, f := range failed {
				fmt.Printf("    baseline failure: %s: %s\n", f.name, f.msg)
			}
			return
		}
		m := d.muts[i-1]
		d.one(copies[w], filepath.Join(d.work, fmt.Sprintf("m%03d", i)), m)
		d.mu.Lock()
		fmt.Printf("[%d/%d] %-11s %4ds %s %s %s→%s (%s) %s %s\n", i, len(d.muts), m.Status, m.Seconds, m.ID, m.Func, m.From, m.To, m.Filter, m.Detail, strings.Join(m.Failed, "; "))
		d.save()
		d.mu.Unlock()
	})
	// A kill counts only with a failed spec that passed against the normal build.
	for _, m := range d.muts {
		if m.Status != "KILLED" || len(m.failed) == 0 {
			continue
		}
		own := 0
		for _, f := range m.failed {
			if !d.baseFailed[f.name] {
				own++
			}
		}
		if own == 0 || (!d.baseOK && len(d.baseFailed) == 0) {
			m.Status, m.Detail = "BASELINE FAILED", "every spec that failed also failed against the normal build"
		}
	}
	d.save()
}

func pool(jobs, n int, f func(worker, i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(w, i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

func (d *driver) one(copyDir, dir string, m *mutant) {
	t0 := time.Now()
	defer func() { m.Seconds = int(time.Since(t0).Seconds()) }()
	restore, err := apply(copyDir, m)
	if err != nil {
		m.Status, m.Detail = "ERROR", err.Error()
		return
	}
	defer func() {
		if err := restore(); err != nil {
			fatal(fmt.Errorf("restore %s: %w", m.File, err))
		}
	}()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		m.Status, m.Detail = "ERROR", err.Error()
		return
	}
	defer os.RemoveAll(dir)
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-buildid=", "-o", bin+"/", "./cmd/podspec", "./cmd/podspec-supervisor")
	build.Dir = copyDir
	if outp, err := build.CombinedOutput(); err != nil {
		m.Status, m.Detail = "NOT VIABLE", firstLine(string(outp))
		return
	}
	if same(filepath.Join(bin, "podspec"), filepath.Join(d.bin, "podspec")) &&
		same(filepath.Join(bin, "podspec-supervisor"), filepath.Join(d.bin, "podspec-supervisor")) {
		m.Status, m.Detail = "EQUIVALENT", "binaries identical to the normal build"
		return
	}
	timeout := d.timeout
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	rc, _, failed, detail := d.conformance(ctx, dir, filepath.Join(bin, "podspec"), m.Filter)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		m.Status, m.Detail = "TIMED OUT", fmt.Sprintf("after %s", timeout)
	case rc == 0:
		m.Status = "LIVED"
	case rc == 1 && len(failed) > 0:
		m.Status, m.failed = "KILLED", failed
		for _, f := range failed {
			m.Failed = append(m.Failed, f.name+": "+f.msg)
		}
	case rc == 1:
		m.Status, m.Detail = "KILLED", "a check failed: "+detail
	default:
		m.Status, m.Detail = "ERROR", fmt.Sprintf("conformance exit %d: %s", rc, detail)
	}
}

func same(a, b string) bool {
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return strings.TrimSpace(s)
}

// conformance runs the specs matching filter with runtime as the runtime, in dir (its own
// --root, OCI root, work directory and report), and cleans up what the run left.
func (d *driver) conformance(ctx context.Context, dir, runtime, filter string) (rc, secs int, failed []failedSpec, detail string) {
	root := filepath.Join(dir, "root")
	for _, sub := range []string{root, filepath.Join(dir, "wd")} {
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return 2, 0, nil, err.Error()
		}
	}
	defer cleanup(dir, root, runtime)
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, filepath.Join(d.bin, "podspec-conformance"), "run",
		"--runtime", runtime+" --root "+root, "--oci-root", filepath.Join(root, "runc"),
		"--probe", filepath.Join(d.bin, "podspec-probe"), "--slow-factor", d.slow,
		"--work-dir", filepath.Join(dir, "wd"), "--out", filepath.Join(dir, "out"),
		"--label-filter", filter, "--timeout", "30m")
	cmd.WaitDelay = 10 * time.Second
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		return 2, 0, nil, err.Error()
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	err = cmd.Run()
	logf.Close()
	secs = int(time.Since(t0).Seconds())
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		rc = ee.ExitCode()
	default:
		return 2, secs, nil, err.Error()
	}
	failed = failedSpecs(filepath.Join(dir, "out", "report.json"))
	if rc != 0 && len(failed) == 0 {
		detail = tail(filepath.Join(dir, "log"), 5)
	}
	return rc, secs, failed, detail
}

// failedSpecs reads a Ginkgo JSON report: the failed specs, with their failure's first line.
func failedSpecs(path string) []failedSpec {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var reps []struct {
		SpecReports []struct {
			ContainerHierarchyTexts []string
			LeafNodeText            string
			State                   string
			Failure                 struct{ Message string }
		}
	}
	if json.Unmarshal(data, &reps) != nil {
		return nil
	}
	var out []failedSpec
	for _, r := range reps {
		for _, s := range r.SpecReports {
			if s.State == "failed" || s.State == "timedout" || s.State == "panicked" || s.State == "aborted" || s.State == "interrupted" {
				name := strings.TrimSpace(strings.Join(append(s.ContainerHierarchyTexts, s.LeafNodeText), " › "))
				msg := firstLine(s.Failure.Message)
				if len(msg) > 200 {
					msg = msg[:200] + "…"
				}
				out = append(out, failedSpec{name, msg})
			}
		}
	}
	return out
}

func tail(path string, n int) string {
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

var podName = regexp.MustCompile(`"name":"([^"]*)"`)

// cleanup removes, with the run's runtime podspec, every pod the run left in root, then every
// runc container of root/runc, and the run's root and work directory.
func cleanup(dir, root, podspec string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, podspec, "--root", root, "list").Output(); err == nil {
		for _, m := range podName.FindAllStringSubmatch(string(out), -1) {
			_ = exec.CommandContext(ctx, podspec, "--root", root, "rm", "--force", m[1]).Run()
		}
	}
	runcRoot := filepath.Join(root, "runc")
	if out, err := exec.CommandContext(ctx, "runc", "--root", runcRoot, "list", "-q").Output(); err == nil {
		for _, id := range strings.Fields(string(out)) {
			_ = exec.CommandContext(ctx, "runc", "--root", runcRoot, "delete", "--force", id).Run()
		}
	}
	unmountUnder(root)
	_ = os.RemoveAll(filepath.Join(dir, "root"))
	_ = os.RemoveAll(filepath.Join(dir, "wd"))
}

// unmountUnder detaches every mount left below root, deepest first: a mutant that crashed in
// the middle of a removal can leave a pod's namespaces and root filesystems mounted after its
// record is gone, where `podspec rm` no longer finds them.
func unmountUnder(root string) {
	data, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return
	}
	var mps []string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[1], root+"/") {
			mps = append(mps, f[1])
		}
	}
	sort.Slice(mps, func(i, j int) bool { return len(mps[i]) > len(mps[j]) })
	for _, mp := range mps {
		_ = syscall.Unmount(mp, syscall.MNT_DETACH)
	}
}

func (d *driver) save() {
	if d.out == "" {
		return
	}
	data, _ := json.MarshalIndent(d.muts, "", "  ")
	_ = os.WriteFile(d.out, append(data, '\n'), 0o644)
}

func (d *driver) summary() {
	count := map[string]int{}
	for _, m := range d.muts {
		count[m.Status]++
	}
	judged := count["KILLED"] + count["LIVED"] + count["TIMED OUT"]
	fmt.Printf("\nmutants: %d run; killed %d, lived %d, timed out %d, equivalent (identical binary) %d, not viable %d, baseline failed %d, error %d\n",
		len(d.muts), count["KILLED"], count["LIVED"], count["TIMED OUT"], count["EQUIVALENT"], count["NOT VIABLE"], count["BASELINE FAILED"], count["ERROR"])
	if judged > 0 {
		fmt.Printf("score (killed + timed out) / (killed + lived + timed out): %.1f%%\n", 100*float64(count["KILLED"]+count["TIMED OUT"])/float64(judged))
	}
	for _, m := range d.muts {
		if m.Status == "LIVED" {
			fmt.Printf("LIVED %s %s: %s→%s in `%s` (%s)\n", m.ID, m.Func, m.From, m.To, m.Source, m.Filter)
		}
	}
}
