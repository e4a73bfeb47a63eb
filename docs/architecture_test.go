package docs

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/architecture.md draws the packages twice in a form this test reads: mermaid flowcharts
// (an arrow from node A to node B: a package of A imports a package of B), and the table of
// the section importsHeading, one row per package of the module with every podspec
// package it imports (test files aside). The test reads the imports from `go list` and fails
// on an arrow or an import that does not exist, an import the table leaves out, and a package
// the table does not list or that does not exist.

const modulePath = "podspec.dev/podspec/"

// importsHeading is the heading of the section whose table lists every package's imports.
const importsHeading = "Packages and what they import"

// moduleImports returns each package of the module (as its path in the module) with the
// module's packages it imports, from `go list` (this build's files, tests left out).
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		var deps []string
		for _, d := range fields[1:] {
			if rel, ok := strings.CutPrefix(d, modulePath); ok {
				deps = append(deps, rel)
			}
		}
		slices.Sort(deps)
		pkgs[strings.TrimPrefix(fields[0], modulePath)] = deps
	}
	return pkgs
}

var (
	mermaidNode  = regexp.MustCompile(`^\s*([A-Za-z0-9_]+)\["([^"]+)"\]\s*$`)
	mermaidArrow = regexp.MustCompile(`^\s*([A-Za-z0-9_]+)\s*-->\s*([A-Za-z0-9_]+)\s*$`)
	tableRow     = regexp.MustCompile("^\\| `([^`]+)` \\| (.*) \\|$")
	code         = regexp.MustCompile("`([^`]+)`")
)

// expand turns a node's label into packages: "reference/{engine,store}" is two.
func expand(label string) []string {
	open := strings.Index(label, "{")
	if open < 0 || !strings.HasSuffix(label, "}") {
		return []string{label}
	}
	var out []string
	for _, s := range strings.Split(label[open+1:len(label)-1], ",") {
		out = append(out, label[:open]+strings.TrimSpace(s))
	}
	return out
}

func TestArchitectureIsTheImports(t *testing.T) {
	b, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	imports := moduleImports(t)
	imported := func(from, to string) bool { return slices.Contains(imports[from], to) }

	// The flowcharts: every node names packages that exist, every arrow is an import.
	lines := strings.Split(string(b), "\n")
	inMermaid, arrows := false, 0
	var nodes map[string][]string
	for i, line := range lines {
		switch {
		case strings.TrimSpace(line) == "```mermaid":
			inMermaid, nodes = true, map[string][]string{}
			continue
		case inMermaid && strings.TrimSpace(line) == "```":
			inMermaid = false
			continue
		case !inMermaid:
			continue
		}
		if m := mermaidNode.FindStringSubmatch(line); m != nil {
			nodes[m[1]] = expand(m[2])
			for _, p := range nodes[m[1]] {
				if _, ok := imports[p]; !ok {
					t.Errorf("architecture.md:%d: node %s names package %s, which does not exist", i+1, m[1], p)
				}
			}
			continue
		}
		m := mermaidArrow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		arrows++
		from, to := nodes[m[1]], nodes[m[2]]
		if from == nil || to == nil {
			t.Errorf("architecture.md:%d: arrow %s --> %s: declare both nodes before it (id[\"package\"])", i+1, m[1], m[2])
			continue
		}
		found := false
		for _, f := range from {
			for _, to := range to {
				found = found || imported(f, to)
			}
		}
		if !found {
			t.Errorf("architecture.md:%d: the arrow %v --> %v does not exist: no package of the first imports one of the second", i+1, from, to)
		}
	}
	if arrows == 0 {
		t.Error("architecture.md: no mermaid flowchart arrows found")
	}

	// The table: exactly the module's packages, each with exactly its imports.
	listed := map[string]bool{}
	inTable := false
	for i, line := range lines {
		if strings.HasPrefix(line, "## ") {
			inTable = line == "## "+importsHeading
		}
		m := tableRow.FindStringSubmatch(line)
		if !inTable || m == nil {
			continue
		}
		pkg := m[1]
		deps, ok := imports[pkg]
		if !ok {
			t.Errorf("architecture.md:%d: the table lists %s, which is not a package of the module", i+1, pkg)
			continue
		}
		listed[pkg] = true
		var drawn []string
		for _, c := range code.FindAllStringSubmatch(m[2], -1) {
			drawn = append(drawn, c[1])
		}
		slices.Sort(drawn)
		for _, d := range drawn {
			if !slices.Contains(deps, d) {
				t.Errorf("architecture.md:%d: %s does not import %s (go list)", i+1, pkg, d)
			}
		}
		for _, d := range deps {
			if !slices.Contains(drawn, d) {
				t.Errorf("architecture.md:%d: %s imports %s; add it to its row", i+1, pkg, d)
			}
		}
	}
	for pkg := range imports {
		if !listed[pkg] {
			t.Errorf("architecture.md: package %s is missing from the table of %q (its imports: %v)", pkg, importsHeading, imports[pkg])
		}
	}
}
