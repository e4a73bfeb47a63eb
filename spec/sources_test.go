package spec

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// moduleRoot is the repository root, seen from this package's directory.
const moduleRoot = ".."

// exempt are the trees whose Go files may name requirement IDs as text: this package (the
// catalog and its generator) and the test data. The conformance suites are not exempt: their
// specs are labelled req(spec.STOP006), so that a mistyped ID does not compile.
var exempt = []string{"spec", "testdata"}

// idInText finds something shaped like a requirement ID inside a string.
var idInText = regexp.MustCompile(`\b([A-Z]+)-[0-9]{3}\b`)

// sourceFiles parses every non-test Go file of the module outside the exempt trees.
func sourceFiles(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(moduleRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, e := range exempt {
				if rel == e {
					return filepath.SkipDir
				}
			}
			if strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files[rel] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("found only %d Go files under %s: the walk is broken", len(files), moduleRoot)
	}
	return fset, files
}

// TestRulesLiveOnlyInTheCatalog fails when Go code outside the catalog and the tests keeps a rule
// by hand: a requirement ID in a string literal (use the constant, spec.DEP003), a severity
// chosen where a finding is made (it is spec.SeverityOf(rule)), or a requirement's sentence.
func TestRulesLiveOnlyInTheCatalog(t *testing.T) {
	areas := map[string]bool{}
	for _, r := range requirements {
		areas[r.Area] = true
	}
	fset, files := sourceFiles(t)
	for name, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(n.Value)
				if err != nil {
					return true
				}
				for _, m := range idInText.FindAllStringSubmatch(s, -1) {
					if areas[m[1]] {
						t.Errorf("%s: requirement ID %s written by hand: use the catalog's constant", fset.Position(n.Pos()), m[0])
					}
				}
				norm := strings.Join(strings.Fields(s), " ")
				for _, r := range requirements {
					if len(norm) >= 20 && strings.Contains(norm, strings.Join(strings.Fields(r.Text), " ")) {
						t.Errorf("%s: the sentence of %s copied: read it from the catalog", fset.Position(n.Pos()), r.ID)
					}
				}
			case *ast.KeyValueExpr:
				if severityKey(n.Key) && chosenSeverity(n.Value) {
					t.Errorf("%s: a finding's severity chosen by hand: use spec.SeverityOf(rule)", fset.Position(n.Pos()))
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if sel, ok := lhs.(*ast.SelectorExpr); ok && sel.Sel.Name == "Severity" && i < len(n.Rhs) && chosenSeverity(n.Rhs[i]) {
						t.Errorf("%s: a finding's severity set by hand: use spec.SeverityOf(rule)", fset.Position(n.Pos()))
					}
				}
			}
			return true
		})
		_ = name
	}
}

// severityKey reports whether a composite literal's key is a severity: the field Severity or
// the map key "severity" (a finding written as JSON by hand).
func severityKey(k ast.Expr) bool {
	switch k := k.(type) {
	case *ast.Ident:
		return k.Name == "Severity"
	case *ast.BasicLit:
		return k.Kind == token.STRING && strings.EqualFold(strings.Trim(k.Value, "`\""), "severity")
	}
	return false
}

// chosenSeverity reports whether e names a severity itself (finding.Warning, spec.Error, "error")
// rather than reading one (spec.SeverityOf(rule), e.Severity(), another finding's field).
func chosenSeverity(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.SelectorExpr:
		return e.Sel.Name == "Error" || e.Sel.Name == "Warning"
	case *ast.Ident:
		return e.Name == "Error" || e.Name == "Warning"
	}
	return false
}

// TestTheSourceScanSeesWhatItLooksFor holds the scan to finding each kind of hand-kept rule, so
// that a scan broken into silence does not pass.
func TestTheSourceScanSeesWhatItLooksFor(t *testing.T) {
	src := `package p
var a = "see DEP-003"
var b = Finding{Rule: DEP003, Severity: finding.Warning}
func f() { b.Severity = "error" }
var c = Finding{Rule: DEP003, Severity: spec.SeverityOf(DEP003)}
var e = map[string]any{"rule": DEP003, "severity": "warning"}
var d = "SHA-256"
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids, chosen, read int
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			s, _ := strconv.Unquote(n.Value)
			for _, m := range idInText.FindAllStringSubmatch(s, -1) {
				if Known(m[0]) {
					ids++
				}
			}
		case *ast.KeyValueExpr:
			if severityKey(n.Key) {
				if chosenSeverity(n.Value) {
					chosen++
				} else {
					read++
				}
			}
		case *ast.AssignStmt:
			if chosenSeverity(n.Rhs[0]) {
				chosen++
			}
		}
		return true
	})
	if ids != 1 || chosen != 3 || read != 1 {
		t.Errorf("the scan found %d IDs, %d chosen and %d read severities; want 1, 3 and 1", ids, chosen, read)
	}
}
