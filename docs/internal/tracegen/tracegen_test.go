package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"podspec.dev/podspec/conformance/suites"
	"podspec.dev/podspec/spec"
)

// current is the trace of this module's working tree (Ginkgo allows one dry run per process).
var current = sync.OnceValues(func() (*trace, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	root, err := moduleRoot(wd)
	if err != nil {
		return nil, err
	}
	report, err := suites.DryRun(nil)
	if err != nil {
		return nil, err
	}
	return collect(root, report)
})

func mustCurrent(t *testing.T) *trace {
	t.Helper()
	tr, err := current()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestTraceabilityFileIsUpToDate(t *testing.T) {
	tr := mustCurrent(t)
	committed, err := os.ReadFile(filepath.Join(tr.root, "docs", "traceability.md"))
	if err != nil {
		t.Fatalf("%v: run `go generate ./docs/`", err)
	}
	got, want := strings.Split(string(committed), "\n"), strings.Split(render(tr), "\n")
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Fatalf("docs/traceability.md is stale: run `go generate ./docs/` and commit it. First difference, line %d:\n  committed: %s\n  generated: %s", i+1, g, w)
		}
	}
}

func TestEveryRuntimeRequirementIsCheckedOrWaived(t *testing.T) {
	tr := mustCurrent(t)
	for _, r := range tr.reqs {
		if r.RuntimeTested() && len(tr.goTests[r.ID]) == 0 && len(tr.specs[r.ID]) == 0 && tr.pending[r.ID] == "" {
			t.Errorf("%s (%s, enforced by runtime) has no Go test named after it, no conformance spec labelled req:%s and no entry in conformance/suites/pending.yaml", r.ID, r.Level, r.ID)
		}
	}
}

// A requirement on podspec's converter is not a runtime's to certify: a Go test named after it
// holds the converter to it.
func TestEveryConverterRequirementHasAGoTest(t *testing.T) {
	tr := mustCurrent(t)
	n := 0
	for _, r := range tr.reqs {
		if !r.ConverterTested() {
			continue
		}
		n++
		if len(tr.goTests[r.ID]) == 0 {
			t.Errorf("%s (%s, enforced by the converter) has no Go test named after it (Test%s_...)", r.ID, r.Level, strings.ReplaceAll(r.ID, "-", ""))
		}
		if tr.pending[r.ID] != "" {
			t.Errorf("%s is enforced by the converter, not by a runtime: remove it from conformance/suites/pending.yaml", r.ID)
		}
	}
	if n == 0 {
		t.Error("the catalog holds no converter requirement; KUBE-017 and KUBE-018 are")
	}
}

// A requirement only the validator enforces is a rule about manifests: the corpus shows it with
// at least one case. (Runtime sentences the validator also checks, such as MAN-010, are exempt.)
func TestEveryValidatorOnlyRuleHasACorpusCase(t *testing.T) {
	tr := mustCurrent(t)
	for _, r := range tr.reqs {
		if r.ValidatorRule() && !r.RuntimeTested() && len(tr.corpus[r.ID]) == 0 {
			t.Errorf("%s (%s, enforced by the validator) has no case under testdata/ with an `# expect: %s` line", r.ID, r.Level, r.ID)
		}
	}
}

func TestTestsAndCorpusCasesNameOnlyKnownRequirements(t *testing.T) {
	for _, p := range mustCurrent(t).problems {
		t.Error(p)
	}
}

// The trace of the real tree finds the kinds of checks it is meant to find; a scanner that
// silently found nothing would otherwise produce a plausible, empty table. The pending list is
// not among them: it is empty since every runtime-level requirement has a spec.
func TestTheTraceOfThisTreeFindsEveryKindOfCheck(t *testing.T) {
	tr := mustCurrent(t)
	if len(tr.corpus) == 0 || len(tr.goTests) == 0 || len(tr.specs) == 0 {
		t.Fatalf("corpus %d, Go tests %d, specs %d requirements: want some of each", len(tr.corpus), len(tr.goTests), len(tr.specs))
	}
	if cases := tr.corpus["DEP-003"]; !slices.ContainsFunc(cases, func(c string) bool { return strings.HasPrefix(c, "invalid/DEP-003-") }) {
		t.Errorf("DEP-003 corpus cases %v: want the invalid/DEP-003-* files", cases)
	}
	for _, id := range []string{"STOP-006", "DEFER-005"} {
		if !slices.ContainsFunc(tr.goTests[id], func(g goTest) bool {
			return g.Name == "TestDEFER005_STOP006_BeforeStopDeferIsKilledAtTheReservePoint" && g.Pkg == "engine" && g.File == "reference/engine/defer_test.go"
		}) {
			t.Errorf("%s Go tests %+v: want engine.TestDEFER005_STOP006_... in reference/engine/defer_test.go", id, tr.goTests[id])
		}
	}
}

func TestRequirementsOfTestName(t *testing.T) {
	cases := []struct {
		name string
		want []string
	}{
		{"TestSTOP006", []string{"STOP-006"}},
		{"TestSTOP006_ReservePoint", []string{"STOP-006"}},
		{"TestDEFER002_HB009_HB013_Defers", []string{"DEFER-002", "HB-009", "HB-013"}},
		{"TestHOOK003_ImageUser_STOP001", []string{"HOOK-003"}},
		{"TestLookupUser", nil},
		{"TestSTOP06_TooShort", nil},
		{"TestSTOP0061_TooLong", nil},
		{"TestStop006_LowerCase", nil},
		{"BenchmarkSTOP006", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := requirementsOfTestName(tc.name); !slices.Equal(got, tc.want) {
				t.Errorf("requirementsOfTestName(%q) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}

func TestGoTestsAreFoundByParsingNotByText(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a", "a_test.go"), `package a

import "testing"

// TestSTOP009_InAComment is not a test.
func TestSTOP006_Real(t *testing.T) {}
func TestSTOP007_Bench(b *testing.B) {}
func TestSTOP008_Helper() {}
func (s suite) TestSTOP010_Method(t *testing.T) {}
var _ = "func TestSTOP011_InAString(t *testing.T) {}"
`)
	write(t, filepath.Join(root, "a", "a.go"), "package a\n\nimport \"testing\"\n\nfunc TestSTOP012_NotATestFile(t *testing.T) {}\n")
	write(t, filepath.Join(root, "a", "testdata", "x_test.go"), "package x\n\nimport \"testing\"\n\nfunc TestSTOP013_Testdata(t *testing.T) {}\n")
	got, err := goTestsByRequirement(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]goTest{"STOP-006": {{Pkg: "a", Name: "TestSTOP006_Real", File: "a/a_test.go"}}}
	if len(got) != 1 || !slices.Equal(got["STOP-006"], want["STOP-006"]) {
		t.Errorf("goTestsByRequirement = %+v, want %+v", got, want)
	}
}

func TestCorpusCasesAreReadFromTheExpectationHeader(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "invalid", "DEP-003-cycle.yaml"), "# expect: DEP-003 12:9\n#   expect: DEP-004 3\n\n# a comment\napiVersion: v\n# expect: MAN-001 1:1\n")
	write(t, filepath.Join(dir, "invalid", "MAN-006-broken.json"), "{")
	write(t, filepath.Join(dir, "invalid", "MAN-006-broken.expect"), "expect: MAN-006 1\n")
	write(t, filepath.Join(dir, "update", "UPD-001-x", "new.yaml"), "# expect: UPD-001 4:5\n")
	write(t, filepath.Join(dir, "valid", "plain.yaml"), "apiVersion: v\n")
	write(t, filepath.Join(dir, "images", "app", "oci-layout"), "{}")
	write(t, filepath.Join(dir, "images", "app", "x.yaml"), "# expect: IMG-001 1:1\n")
	got, err := corpusCases(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"DEP-003": {"invalid/DEP-003-cycle.yaml"},
		"DEP-004": {"invalid/DEP-003-cycle.yaml"},
		"MAN-006": {"invalid/MAN-006-broken.json"},
		"UPD-001": {"update/UPD-001-x/new.yaml"},
	}
	if len(got) != len(want) {
		t.Errorf("corpusCases = %v, want %v", got, want)
	}
	for id, cases := range want {
		if !slices.Equal(got[id], cases) {
			t.Errorf("%s: cases %v, want %v", id, got[id], cases)
		}
	}
}

func TestRenderNamesWhatChecksEachRequirement(t *testing.T) {
	reqs := []spec.Requirement{
		{ID: "DEP-003", Level: "MUST", Profile: "core", EnforcedBy: []string{"validator"}, Source: "spec/ordering.md"},
		{ID: "STOP-006", Level: "MUST", Profile: "core", EnforcedBy: []string{"runtime"}, Source: "spec/stop.md"},
		{ID: "GC-001", Level: "MUST", Profile: "gc", EnforcedBy: []string{"runtime"}, Source: "spec/stop.md"},
		{ID: "STAT-002", Level: "MUST", Profile: "core", EnforcedBy: []string{"runtime"}, Source: "spec/exit.md", Clauses: []spec.Clause{
			{ID: "STAT-002.set", Requirement: "STAT-002", Key: "set", Text: "MUST be set"},
			{ID: "STAT-002.only-if", Requirement: "STAT-002", Key: "only-if", Text: "only if a signal killed it"},
		}},
	}
	tr := &trace{
		reqs:          reqs,
		corpus:        map[string][]string{"DEP-003": {"invalid/DEP-003-cycle.yaml"}},
		goTests:       map[string][]goTest{"STOP-006": {{Pkg: "engine", Name: "TestSTOP006_X", File: "reference/engine/lifecycle_test.go"}}},
		specs:         map[string][]string{"STOP-006": {"stop sequence [req:STOP-006] a | b"}, "STAT-002": {"exit"}, "STAT-002.set": {"exit"}},
		pending:       map[string]string{"GC-001": "not yet", "STAT-002.only-if": "no spec yet"},
		mutants:       map[string][]string{"STOP-006": {"late_kill"}, "STAT-002.set": {"no_signal"}},
		mutantPending: map[string]string{"GC-001": "no spec", "STAT-002.only-if": "no spec to catch it"},
	}
	md := render(tr)
	for _, want := range []string{
		"\n## [spec/ordering.md](spec/ordering.md)\n",
		"| [DEP-003](spec/ordering.md#DEP-003) | MUST | core | validator | [invalid/DEP-003-cycle.yaml](../testdata/invalid/DEP-003-cycle.yaml) |  |  |  |\n",
		"\n## [spec/stop.md](spec/stop.md)\n",
		"| [STOP-006](spec/stop.md#STOP-006) | MUST | core | runtime |  | [engine.TestSTOP006\\_X](../reference/engine/lifecycle_test.go) | stop sequence \\[req:STOP-006\\] a \\| b | [late\\_kill](../reference/mutants/late_kill.patch) |\n",
		"| [GC-001](spec/stop.md#GC-001) | MUST | gc | runtime |  |  | *pending:* not yet | *pending:* no spec |\n",
		"| [STAT-002](spec/exit.md#STAT-002) | MUST | core | runtime |  |  | exit |  |\n",
		"| ↳ [STAT-002.set](spec/exit.md#STAT-002): MUST be set |  |  |  |  |  | exit | [no\\_signal](../reference/mutants/no_signal.patch) |\n",
		"| ↳ [STAT-002.only-if](spec/exit.md#STAT-002): only if a signal killed it |  |  |  |  |  | *pending:* no spec yet | *pending:* no spec to catch it |\n",
		"4 requirements. Validator rules: 1, 1 of them with a corpus case. Runtime-level: 3 — 2 with a conformance spec, 0 with Go tests only, 1 pending without any test, 0 unchecked.",
		"3 requirements, 4 clauses, 2 covered (a spec labelled with the clause and a mutant that breaks it), 2 pending, 0 neither.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("rendered Markdown lacks %q:\n%s", want, md)
		}
	}
	if n := strings.Count(md, "## [spec/stop.md]"); n != 1 {
		t.Errorf("spec/stop.md has %d sections, want 1", n)
	}
}

func write(t *testing.T, file, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
