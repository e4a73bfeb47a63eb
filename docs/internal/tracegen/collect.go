package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"podspec.dev/podspec/validator/expect"
	"regexp"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
	"go.yaml.in/yaml/v3"

	"podspec.dev/podspec/conformance/suites"
	"podspec.dev/podspec/spec"
)

// modulePath is the module whose tree is scanned.
const modulePath = "podspec.dev/podspec"

// goTest is a Go test function named after the requirements it checks.
type goTest struct {
	Pkg  string // the package directory's name, e.g. "engine"
	Name string // the function, e.g. "TestSTOP006_ReservePoint..."
	File string // slash path relative to the module root
}

// trace is what checks each requirement, by requirement ID.
type trace struct {
	root    string // the module root
	reqs    []spec.Requirement
	corpus  map[string][]string // validator corpus cases: slash paths relative to testdata/
	goTests map[string][]goTest
	specs   map[string][]string // conformance spec texts, by requirement and by clause ID
	pending map[string]string   // pending.yaml waivers: reason
	// mutants are the mutants of reference/mutants/mutants.yaml that list each requirement or
	// clause ID, and mutantPending the reason of its pending entry there.
	mutants       map[string][]string
	mutantPending map[string]string
	// problems are references to IDs the registry does not have.
	problems []string
}

// collect gathers the trace of the module at root; report is a dry run of the conformance suite.
func collect(root string, report types.Report) (*trace, error) {
	tr := &trace{root: root, reqs: spec.All(), specs: specsByRequirement(report), pending: map[string]string{}}
	var err error
	if tr.corpus, err = corpusCases(filepath.Join(root, "testdata")); err != nil {
		return nil, err
	}
	if tr.goTests, err = goTestsByRequirement(root); err != nil {
		return nil, err
	}
	waivers, err := suites.PendingRequirements()
	if err != nil {
		return nil, err
	}
	for _, w := range waivers {
		tr.pending[w.ID] = w.Reason
	}
	if tr.mutants, tr.mutantPending, err = mutantRegistry(filepath.Join(root, mutantRegistryFile)); err != nil {
		return nil, err
	}
	for id, cases := range tr.corpus {
		if !spec.Known(id) {
			tr.problems = append(tr.problems, fmt.Sprintf("corpus case testdata/%s expects unknown requirement %s", cases[0], id))
		}
	}
	for id, tests := range tr.goTests {
		if !spec.Known(id) {
			tr.problems = append(tr.problems, fmt.Sprintf("%s: %s is named after unknown requirement %s", tests[0].File, tests[0].Name, id))
		}
	}
	for id, names := range tr.mutants {
		if _, ok := spec.RequirementOf(id); !ok {
			tr.problems = append(tr.problems, fmt.Sprintf("%s: mutant %s breaks unknown requirement %s", mutantRegistryFile, names[0], id))
		}
	}
	slices.Sort(tr.problems)
	return tr, nil
}

// specsByRequirement maps requirement IDs to the full texts of the specs labelled req:<ID>, and
// clause IDs to those labelled clause:<ID>. The lifecycle model's specs (label model, one per
// scenario) are one line per requirement.
func specsByRequirement(r types.Report) map[string][]string {
	out := map[string][]string{}
	byModel := map[string]bool{}
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		model := slices.Contains(sr.Labels(), suites.ModelLabel)
		for _, l := range sr.Labels() {
			id, ok := spec.LabelID(l)
			switch {
			case !ok:
			case model:
				byModel[id] = true
			case !slices.Contains(out[id], sr.FullText()):
				out[id] = append(out[id], sr.FullText())
			}
		}
	}
	// No count: a new scenario would change every row the model judges.
	for id := range byModel {
		out[id] = append(out[id], "the lifecycle model's verdict on the whole history of the scenarios whose manifests it applies to")
	}
	for _, texts := range out {
		slices.Sort(texts)
	}
	return out
}

// mutantRegistryFile is the mutant registry, relative to the module root (docs/mutants.md).
const mutantRegistryFile = "reference/mutants/mutants.yaml"

// mutantRegistry reads the mutant registry: the names of the mutants that list each requirement
// or clause ID, and the reason of each pending entry. scripts/mutantcheck holds the registry to
// its schema; this reads only what the trace shows.
func mutantRegistry(path string) (map[string][]string, map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read the mutant registry: %w", err)
	}
	var reg struct {
		Mutants []struct {
			Name   string   `yaml:"name"`
			Breaks []string `yaml:"breaks"`
		} `yaml:"mutants"`
		Pending []struct {
			ID     string `yaml:"id"`
			Reason string `yaml:"reason"`
		} `yaml:"pending"`
	}
	if err := yaml.Unmarshal(data, &reg); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	byID, pending := map[string][]string{}, map[string]string{}
	for _, m := range reg.Mutants {
		for _, id := range m.Breaks {
			byID[id] = append(byID[id], m.Name)
		}
	}
	for _, p := range reg.Pending {
		pending[p.ID] = p.Reason
	}
	for _, names := range byID {
		slices.Sort(names)
	}
	return byID, pending, nil
}

// corpusCases maps rule IDs to the corpus files under dir that expect a finding of the rule. A
// YAML file carries its expectations in its leading comment lines, a JSON file in a sibling
// .expect file; image layouts in the corpus are skipped.
func corpusCases(dir string) (map[string][]string, error) {
	out := map[string][]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if _, err := os.Stat(filepath.Join(p, "oci-layout")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		var caseFile string
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml":
			caseFile = p
		case ".expect":
			caseFile = strings.TrimSuffix(p, filepath.Ext(p)) + ".json"
		default:
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, caseFile)
		if err != nil {
			return err
		}
		ids, err := expectedRules(data)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, id := range ids {
			out[id] = append(out[id], filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read the validator corpus: %w", err)
	}
	for _, cases := range out {
		slices.Sort(cases)
	}
	return out, nil
}

// expectedRules returns the rule IDs of a corpus file's expectation lines (package expect),
// each once.
func expectedRules(data []byte) ([]string, error) {
	exps, err := expect.Parse(data)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range exps {
		if !slices.Contains(out, e.Rule) {
			out = append(out, e.Rule)
		}
	}
	return out, nil
}

// idPart is one requirement ID in a test function's name: STOP006 for STOP-006.
var idPart = regexp.MustCompile(`^([A-Z]+)([0-9]{3})$`)

// requirementsOfTestName returns the requirement IDs a test function is named after: the
// leading underscore-separated parts of the name after "Test" that read AREANNN, e.g.
// TestDEFER005_STOP006_BeforeStopDefer... names DEFER-005 and STOP-006.
func requirementsOfTestName(name string) []string {
	rest, ok := strings.CutPrefix(name, "Test")
	if !ok {
		return nil
	}
	var out []string
	for _, part := range strings.Split(rest, "_") {
		m := idPart.FindStringSubmatch(part)
		if m == nil {
			break
		}
		out = append(out, m[1]+"-"+m[2])
	}
	return out
}

// goTestsByRequirement parses every _test.go file of the module at root (skipping testdata,
// vendor and hidden directories) and maps requirement IDs to the test functions named after
// them.
func goTestsByRequirement(root string) (map[string][]goTest, error) {
	out := map[string][]goTest{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		pkg := filepath.Base(filepath.Dir(p))
		if filepath.Dir(p) == root {
			pkg = filepath.Base(modulePath)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || !isTestFunc(fn) {
				continue
			}
			for _, id := range requirementsOfTestName(fn.Name.Name) {
				out[id] = append(out[id], goTest{Pkg: pkg, Name: fn.Name.Name, File: rel})
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the Go tests: %w", err)
	}
	for _, tests := range out {
		slices.SortFunc(tests, func(a, b goTest) int {
			return strings.Compare(a.File+" "+a.Name, b.File+" "+b.Name)
		})
	}
	return out, nil
}

// isTestFunc reports whether fn is a top-level func TestXxx(t *testing.T).
func isTestFunc(fn *ast.FuncDecl) bool {
	if fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Type.Params == nil || len(fn.Type.Params.List) != 1 {
		return false
	}
	star, ok := fn.Type.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "testing" && sel.Sel.Name == "T"
}

// moduleRoot finds the directory of the module's go.mod, from dir upwards.
func moduleRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		first, _, _ := strings.Cut(string(data), "\n")
		if err == nil && strings.TrimSpace(first) == "module "+modulePath {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of %s above %s", modulePath, dir)
		}
	}
}
