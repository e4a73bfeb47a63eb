package main

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

const testMutantPath = "example.com/m/mutant"

// input is a package that tests two switches, A and B, in every form the folder handles.
const input = `package p

import (
	"fmt"
	"strings"

	"example.com/m/mutant"
)

func f(x, y bool, n int) (int, string) {
	s := "a"
	if mutant.A {
		mutantNote("a")
		s = strings.ToUpper(s)
	}
	if x && !mutant.B { // the mutant: B drops the x branch
		n++
	}
	if mutant.A {
		n = 1
	} else if y {
		n = 2
	}
	if !mutant.B {
		z := n * 2
		n = z
	} else {
		n = 0
	}
	for i, c := range s {
		if mutant.A && i > 0 {
			break
		}
		_ = c
	}
	switch {
	case mutant.B && x:
		n = 7
	case (y || mutant.A) && n > 0:
		n = 8
	}
	ok := x || mutant.B
	if mutant.A {
		return 0, "a"
	}
	return n, fmt.Sprint(s, ok)
}

// mutantNote is a helper only A's branch calls.
func mutantNote(s string) { mutantHelper(s) }

func mutantHelper(string) {}
`

const wantOff = `package p

import (
	"fmt"
)

func f(x, y bool, n int) (int, string) {
	s := "a"
	if x {
		n++
	}
	if y {
		n = 2
	}
	z := n * 2
	n = z
	for _, c := range s {
		_ = c
	}
	switch {
	case y && n > 0:
		n = 8
	}
	ok := x
	return n, fmt.Sprint(s, ok)
}
`

func foldTest(t *testing.T, on map[string]bool) string {
	t.Helper()
	fset := token.NewFileSet()
	mf, err := parser.ParseFile(fset, "mutant.go", "package mutant\nconst A, B = false, false\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := (&types.Config{}).Check(testMutantPath, fset, []*ast.File{mf}, nil)
	if err != nil {
		t.Fatal(err)
	}
	std := importer.Default()
	imp := importerFunc(func(path string) (*types.Package, error) {
		if path == testMutantPath {
			return mp, nil
		}
		return std.Import(path)
	})
	var warnings []string
	f := &folder{mutantPath: testMutantPath, on: on, importer: imp, warn: func(s string) { warnings = append(warnings, s) }}
	out, err := f.fold(&pkgSource{path: "example.com/m/p", goVersion: "go1.22", files: map[string][]byte{"p/p.go": []byte(input)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("warnings: %q", warnings)
	return string(out.files["p/p.go"])
}

// TestFoldOff folds every switch off: the branches go, the conditions shrink, the index only A
// read becomes _, the helpers and the imports only the branches used are removed, and the
// comment that spoke of the mutant goes with its switch.
func TestFoldOff(t *testing.T) {
	if got := foldTest(t, map[string]bool{}); got != wantOff {
		t.Fatalf("folded:\n%s\nwant:\n%s", got, wantOff)
	}
}

// TestFoldOn folds A on: its branches stay, inlined, and so do the helpers they call; what
// followed a branch that returns is unreachable and goes, with the variable and the import only
// it used.
func TestFoldOn(t *testing.T) {
	got := foldTest(t, map[string]bool{"A": true})
	for _, want := range []string{
		"\tmutantNote(\"a\")\n\ts = strings.ToUpper(s)\n",
		"\tn = 1\n\tz := n * 2\n",
		"\t\tif i > 0 {\n\t\t\tbreak\n",
		"\tcase n > 0:\n",
		"func mutantNote(s string) { mutantHelper(s) }",
		"func mutantHelper(string) {}",
		"\t\"strings\"\n",
		"\t\tn = 8\n\t}\n\treturn 0, \"a\"\n}",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("folded with A on lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "mutant.") || strings.Contains(got, "if y {") || strings.Contains(got, "fmt") {
		t.Errorf("folded with A on still tests a switch or keeps the dead else:\n%s", got)
	}
}

// TestArchTable takes reference/mutant out of the imports table wherever it stands in a row.
func TestArchTable(t *testing.T) {
	in := "| `a` | `b`, `reference/mutant`, `c` |\n| `d` | `reference/mutant`, `e` |\n| `f` | `g`, `reference/mutant` |\n| `h` | `reference/mutant` |\n| `reference/mutant` | — |\n| `reference/mutants` | `x` |\n"
	want := "| `a` | `b`, `c` |\n| `d` | `e` |\n| `f` | `g` |\n| `h` | — |\n| `reference/mutants` | `x` |\n"
	if got := archTable(in); got != want {
		t.Fatalf("archTable:\n%s\nwant:\n%s", got, want)
	}
}
