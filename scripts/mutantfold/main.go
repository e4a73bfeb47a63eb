// Command mutantfold turns the reference runtime's mutant switches into patch files
// (docs/mutants.md, issue 26). It reads a tree whose runtime still tests switches, the boolean
// constants of package reference/mutant (`if mutant.X { ... }`), and folds them:
//
//   - the production source becomes the tree with every switch false: each switch replaced by
//     its value, the conditions simplified (`x && false` is false, `x || false` is x, `!false`
//     is true), `if false { ... }` dropped (its else kept), the body of `if true { ... }`
//     inlined, a case that can no longer match dropped, then local variables left unused,
//     top-level declarations named mutant... that nothing references any more and imports
//     left unused removed, to a fixpoint, and the files gofmt'ed;
//   - each mutant becomes reference/mutants/NAME.patch, the unified diff (repository-relative
//     paths, git style) from that production source to the same fold with only its switch true;
//   - the registry moves from reference/mutant/mutants.yaml to reference/mutants/mutants.yaml, the
//     table of docs/mutants.md names each mutant's patch instead of its build tag, package
//     reference/mutant is deleted and leaves the imports table of docs/architecture.md.
//
// Run it from the repository root on a tree that still has switches:
//
//	go run ./scripts/mutantfold          # rewrite the tree
//	go run ./scripts/mutantfold -n       # fold and diff, report, write nothing
//	scripts/mutantfold/regenerate.sh     # rewrite, check (build, vet, tests) and commit alone
//
// It fails, naming the place, where a switch sits somewhere it cannot fold (a switch inside a
// call inside a condition, an if with an init statement that folds to true, an unused variable
// declared with a call): tidy the switch-style source there and run it again. It warns about
// results that read badly (a condition folded to a constant in an assignment or argument, a
// body kept as a block because its names would clash): tidy those in the switch-style source
// too, so that the production source and the patches stay consistent.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pmezard/go-difflib/difflib"
	"golang.org/x/tools/go/packages"
)

const (
	switchDir   = "reference/mutant"
	patchDir    = "reference/mutants"
	oldRegistry = switchDir + "/mutants.yaml"
	newRegistry = patchDir + "/mutants.yaml"
	mutantsDoc  = "docs/mutants.md"
	// architectureDoc's table of each package's imports lists reference/mutant.
	architectureDoc = "docs/architecture.md"
)

func main() {
	dry := flag.Bool("n", false, "fold and diff, report, but write nothing")
	only := flag.String("only", "", "with -n: only these mutants (comma-separated), their patches printed")
	flag.Parse()
	start := time.Now()
	if err := run(*dry, *only); err != nil {
		fmt.Fprintln(os.Stderr, "mutantfold:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "mutantfold: done in %s\n", time.Since(start).Round(time.Second))
}

// A mutant is one switch: the registry's name (the switch file's stem) and its constant.
type mutant struct{ name, constant string }

func run(dry bool, only string) error {
	mutants, err := switches(switchDir)
	if err != nil {
		return err
	}
	if only != "" {
		if !dry {
			return errors.New("-only needs -n")
		}
		mutants = slices.DeleteFunc(mutants, func(m mutant) bool { return !slices.Contains(strings.Split(only, ","), m.name) })
	}
	modPath, err := modulePath()
	if err != nil {
		return err
	}
	mutantPath := modPath + "/" + switchDir
	pkgs, imp, err := load(mutantPath)
	if err != nil {
		return err
	}
	var warnMu sync.Mutex
	var warnings []string
	warn := func(s string) {
		warnMu.Lock()
		defer warnMu.Unlock()
		warnings = append(warnings, s)
	}

	// The production source: every switch off.
	off := map[string]*pkgSource{}
	var offErrs []error
	for _, p := range pkgs {
		f := &folder{mutantPath: mutantPath, on: map[string]bool{}, importer: imp, warn: warn}
		q, err := f.fold(p)
		if err != nil {
			offErrs = append(offErrs, err)
			continue
		}
		off[p.path] = q
	}
	if len(offErrs) > 0 {
		return errors.Join(offErrs...)
	}
	// What still speaks of a mutant in the production source was not folded away.
	said := regexp.MustCompile(`(?i)mutant`)
	for _, p := range off {
		for n, b := range p.files {
			for i, l := range strings.Split(string(b), "\n") {
				if said.MatchString(l) {
					warn(fmt.Sprintf("%s:%d: still mentions a mutant: %s", n, i+1, strings.TrimSpace(l)))
				}
			}
		}
	}

	// One patch per mutant: the fold with its switch on, against the production source.
	patches := make([]string, len(mutants))
	errs := make([]error, len(mutants))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, m := range mutants {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			patches[i], errs[i] = patchOf(m, pkgs, off, mutantPath, imp)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	slices.Sort(warnings)
	warnings = slices.Compact(warnings)
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "mutantfold: warning:", w)
	}
	lines := 0
	for _, p := range patches {
		lines += strings.Count(p, "\n")
	}
	fmt.Fprintf(os.Stderr, "mutantfold: %d packages folded, %d patches (%d lines)\n", len(pkgs), len(patches), lines)
	if dry {
		if only != "" {
			for _, p := range patches {
				fmt.Print(p)
			}
		}
		return nil
	}
	return write(pkgs, off, mutants, patches)
}

// switches reads the switch constants of dir: NAME_on.go declares one constant each.
func switches(dir string) ([]mutant, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_on.go"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no switch in %s: is this tree converted already?", dir)
	}
	var out []mutant
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, d := range af.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, sp := range gd.Specs {
					for _, n := range sp.(*ast.ValueSpec).Names {
						names = append(names, n.Name)
					}
				}
			}
		}
		if len(names) != 1 {
			return nil, fmt.Errorf("%s declares %d constants, want 1", f, len(names))
		}
		out = append(out, mutant{name: strings.TrimSuffix(filepath.Base(f), "_on.go"), constant: names[0]})
	}
	return out, nil
}

func modulePath() (string, error) {
	b, err := os.ReadFile("go.mod")
	if err != nil {
		return "", fmt.Errorf("run from the repository root: %w", err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(b)
	if m == nil {
		return "", errors.New("go.mod names no module")
	}
	return string(m[1]), nil
}

// load finds the packages that import the switches' package and the types of everything they
// import (from export data, through golang.org/x/tools/go/packages, which runs `go list`).
func load(mutantPath string) ([]*pkgSource, types.Importer, error) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedImports}
	all, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, nil, err
	}
	var paths []string
	for _, p := range all {
		if _, ok := p.Imports[mutantPath]; ok && p.PkgPath != mutantPath {
			paths = append(paths, p.PkgPath)
		}
	}
	cfg = &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedTypes | packages.NeedModule}
	loaded, err := packages.Load(cfg, paths...)
	if err != nil {
		return nil, nil, err
	}
	byPath := map[string]*types.Package{}
	var out []*pkgSource
	var loadErrs []error
	packages.Visit(loaded, nil, func(p *packages.Package) {
		byPath[p.PkgPath] = p.Types
		for _, e := range p.Errors {
			loadErrs = append(loadErrs, e)
		}
	})
	if len(loadErrs) > 0 {
		return nil, nil, errors.Join(loadErrs...)
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, nil, err
	}
	for _, p := range loaded {
		ps := &pkgSource{path: p.PkgPath, files: map[string][]byte{}, goVersion: "go1.21"}
		if p.Module != nil && p.Module.GoVersion != "" {
			ps.goVersion = "go" + p.Module.GoVersion
		}
		for _, f := range p.GoFiles {
			rel, err := filepath.Rel(wd, f)
			if err != nil {
				return nil, nil, err
			}
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, nil, err
			}
			ps.files[filepath.ToSlash(rel)] = b
		}
		out = append(out, ps)
	}
	slices.SortFunc(out, func(a, b *pkgSource) int { return strings.Compare(a.path, b.path) })
	imp := importerFunc(func(path string) (*types.Package, error) {
		if path == "unsafe" {
			return types.Unsafe, nil
		}
		if p := byPath[path]; p != nil {
			return p, nil
		}
		return nil, fmt.Errorf("package %s not loaded", path)
	})
	return out, imp, nil
}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// patchOf folds, with only m's switch on, each package that tests it, and diffs the result
// against the production source.
func patchOf(m mutant, pkgs []*pkgSource, off map[string]*pkgSource, mutantPath string, imp types.Importer) (string, error) {
	ref := regexp.MustCompile(`\bmutant\.` + m.constant + `\b`)
	var b strings.Builder
	tested := false
	for _, p := range pkgs {
		uses := false
		for _, src := range p.files {
			if ref.Match(src) {
				uses = true
			}
		}
		if !uses {
			continue
		}
		tested = true
		f := &folder{mutantPath: mutantPath, on: map[string]bool{m.constant: true}, importer: imp, warn: func(string) {}}
		on, err := f.fold(p)
		if err != nil {
			return "", fmt.Errorf("mutant %s: %w", m.name, err)
		}
		names := map[string]bool{}
		for n := range on.files {
			names[n] = true
		}
		for n := range off[p.path].files {
			names[n] = true
		}
		sorted := slices.Sorted(func(yield func(string) bool) {
			for n := range names {
				if !yield(n) {
					return
				}
			}
		})
		for _, n := range sorted {
			d, err := fileDiff(n, off[p.path].files[n], on.files[n])
			if err != nil {
				return "", err
			}
			b.WriteString(d)
		}
	}
	if !tested {
		return "", fmt.Errorf("mutant %s: no package tests mutant.%s", m.name, m.constant)
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("mutant %s: its switch changes nothing", m.name)
	}
	return b.String(), nil
}

// fileDiff is the git-style unified diff of one file (nil: absent), with 3 lines of context
// (github.com/pmezard/go-difflib, Python's difflib in Go: a well-known, dependency-free
// unified diff writer).
func fileDiff(name string, a, b []byte) (string, error) {
	if bytes.Equal(a, b) {
		return "", nil
	}
	if b == nil {
		return "", fmt.Errorf("%s: a mutant deletes the file, which no patch should", name)
	}
	var head strings.Builder
	fmt.Fprintf(&head, "diff --git a/%s b/%s\n", name, name)
	from := "a/" + name
	if a == nil {
		head.WriteString("new file mode 100644\n")
		from = "/dev/null"
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        splitLines(a),
		B:        splitLines(b),
		FromFile: from,
		ToFile:   "b/" + name,
		Context:  3,
	})
	if err != nil {
		return "", err
	}
	// difflib writes "--- a/x\t" when the file has no date; git and patch want no tab.
	d = strings.Replace(d, from+"\t\n", from+"\n", 1)
	d = strings.Replace(d, "b/"+name+"\t\n", "b/"+name+"\n", 1)
	return head.String() + d, nil
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return difflib.SplitLines(strings.TrimSuffix(string(b), "\n"))
}

// write rewrites the tree: the production source, the patches, the registry, the docs table.
func write(pkgs []*pkgSource, off map[string]*pkgSource, mutants []mutant, patches []string) error {
	for _, p := range pkgs {
		for n, b := range off[p.path].files {
			if b == nil {
				if err := os.Remove(n); err != nil && !os.IsNotExist(err) {
					return err
				}
				continue
			}
			if err := os.WriteFile(n, b, 0o644); err != nil {
				return err
			}
		}
	}
	reg, err := os.ReadFile(oldRegistry)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(patchDir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(newRegistry, []byte(registryHeader+stripHeader(string(reg))), 0o644); err != nil {
		return err
	}
	for i, m := range mutants {
		if err := os.WriteFile(filepath.Join(patchDir, m.name+".patch"), []byte(patches[i]), 0o644); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(switchDir); err != nil {
		return err
	}
	doc, err := os.ReadFile(mutantsDoc)
	if err != nil {
		return err
	}
	if err := os.WriteFile(mutantsDoc, []byte(docTable(string(doc))), 0o644); err != nil {
		return err
	}
	arch, err := os.ReadFile(architectureDoc)
	if err != nil {
		return err
	}
	return os.WriteFile(architectureDoc, []byte(archTable(string(arch))), 0o644)
}

// archTable takes package reference/mutant out of the imports table of docs/architecture.md:
// its row, and its cell in every row that imported it.
func archTable(doc string) string {
	const pkg = "`" + switchDir + "`"
	lines := strings.Split(doc, "\n")
	out := lines[:0]
	for _, l := range lines {
		if strings.HasPrefix(l, "| "+pkg+" |") {
			continue
		}
		if strings.HasPrefix(l, "| `") {
			l = strings.Replace(l, pkg+", ", "", 1)
			l = strings.Replace(l, ", "+pkg, "", 1)
			l = strings.Replace(l, "| "+pkg+" |", "| — |", 1)
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// registryHeader is the comment the moved registry starts with.
const registryHeader = `# The mutant registry (docs/mutants.md): every mutant build of the reference runtime, the
# requirements it breaks and how scripts/mutants.sh runs it, and every runtime-level MUST (and
# SHOULD the suite grades) that no mutant breaks yet, with the reason. scripts/mutantcheck reads
# it: ` + "`mutantcheck list`" + ` feeds scripts/mutants.sh, and its gate test (go test ./scripts/mutantcheck)
# fails when a runtime-level requirement is in neither list, when a pending entry has gained a
# mutant, or when a mutant has no patch here or no row in docs/mutants.md.
#
# name: the mutant is reference/mutants/NAME.patch, a unified diff of the production source.
# breaks: the requirements whose specs must catch it (a spec labelled with one fails in its own It).
# labelFilter, focus: the conformance run against the mutant (--label-filter, --focus).
# match: a regular expression the catching failure message must match (tells the mutant from
#   a slow machine), may be empty.
# what: one line, what the mutant gets wrong.
`

// stripHeader drops the registry's leading comment lines.
func stripHeader(s string) string {
	for strings.HasPrefix(s, "#") {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return ""
		}
		s = s[i+1:]
	}
	return s
}

var (
	tableHead = regexp.MustCompile(`(?m)^\| mutant \| build tag \|`)
	tableTag  = regexp.MustCompile("(?m)^(\\| .+? \\| )`mutant_([a-z0-9_]+)`( \\| )")
)

// docTable makes the table of docs/mutants.md name each mutant's patch instead of its tag.
func docTable(doc string) string {
	doc = tableHead.ReplaceAllString(doc, "| mutant | patch |")
	return tableTag.ReplaceAllString(doc, "${1}[`${2}`](../reference/mutants/${2}.patch)${3}")
}
