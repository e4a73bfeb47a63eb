package validator

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"podspec.dev/podspec/validator/expect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/spec"
)

// The corpus under testdata/ (see docs/validate.md, "Test corpus"):
//
//   - testdata/valid/**: no errors; warnings only where listed with "# expect:".
//   - testdata/kubernetes/{valid,invalid}/**: the same for Kubernetes objects.
//   - testdata/invalid/<RULE>-<name>.(yaml|yml|json): "# expect: RULE LINE:COL" header lines
//     (JSON files: a sibling <name>.expect file with "expect: RULE LINE:COL" lines). The set of
//     (rule, line, column) the real pipeline reports must equal the expected set exactly.
//     "RULE LINE" without a column expects a finding whose column is unknown (syntax errors).
//   - testdata/update/<RULE>-<name>/{old.yaml,new.yaml}: the same, for new.yaml validated as an
//     update of old.yaml.
//
// Suppressed findings are not part of the compared set.
const corpus = "../testdata"

// expectation is one expected (rule, line, column); see package expect.
type expectation = expect.Finding

// readExpectations reads the expect lines of a corpus file: its leading comment lines, or a
// sibling .expect file for JSON.
func readExpectations(t *testing.T, file string) []expectation {
	t.Helper()
	src := file
	if strings.EqualFold(filepath.Ext(file), ".json") {
		src = strings.TrimSuffix(file, filepath.Ext(file)) + ".expect"
		if _, err := os.Stat(src); err != nil {
			return nil
		}
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatalf("read expectations: %v", err)
	}
	exps, err := expect.Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return sortExp(exps)
}

func sortExp(es []expectation) []expectation {
	slices.SortFunc(es, func(a, b expectation) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(es)
}

// reported is the set of unsuppressed (rule, line, col) of results.
func reported(results []*Result) ([]expectation, []finding.Finding) {
	var out []expectation
	var all []finding.Finding
	for _, r := range results {
		for _, f := range r.Findings {
			if f.Suppressed {
				continue
			}
			all = append(all, f)
			out = append(out, expectation{Rule: f.Rule, Line: f.Pos.Line, Col: f.Pos.Column})
		}
	}
	return sortExp(out), all
}

func corpusFiles(t testing.TB, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && isImageLayout(p) {
			return filepath.SkipDir
		}
		if !d.IsDir() && isManifestName(d.Name()) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("walk %s: %v", dir, err)
	}
	return files
}

func newTestValidator(t *testing.T) *Validator {
	t.Helper()
	v, err := New(Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return v
}

func validateFile(t *testing.T, v *Validator, file string) []*Result {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return v.Bytes(file, data)
}

func describe(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n    %s:%d:%d %s %s: %s", filepath.Base(f.Pos.File), f.Pos.Line, f.Pos.Column, f.Severity, f.Rule, f.Message)
	}
	return b.String()
}

func TestGoldenInvalidCorpus(t *testing.T) {
	v := newTestValidator(t)
	files := corpusFiles(t, filepath.Join(corpus, "invalid"))
	files = append(files, corpusFiles(t, filepath.Join(corpus, "kubernetes", "invalid"))...)
	if len(files) == 0 {
		t.Fatal("no invalid corpus files")
	}
	for _, file := range files {
		rel, _ := filepath.Rel(corpus, file)
		t.Run(rel, func(t *testing.T) {
			want := readExpectations(t, file)
			if len(want) == 0 {
				t.Fatalf("no expectations: an invalid case needs at least one \"# expect:\" line")
			}
			prefix := ruleOfName(filepath.Base(file))
			if prefix == "" || !slices.ContainsFunc(want, func(e expectation) bool { return e.Rule == prefix }) {
				t.Errorf("the file is named for rule %q but expects no finding of it", prefix)
			}
			got, all := reported(validateFile(t, v, file))
			if !slices.Equal(got, want) {
				t.Errorf("findings differ\n  want %v\n  got  %v\n  reported:%s", want, got, describe(all))
			}
		})
	}
}

var reRuleName = regexp.MustCompile(`^([A-Z]+-[0-9]{3})-`)

func ruleOfName(name string) string {
	if m := reRuleName.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return ""
}

func TestGoldenValidCorpus(t *testing.T) {
	v := newTestValidator(t)
	files := corpusFiles(t, filepath.Join(corpus, "valid"))
	files = append(files, corpusFiles(t, filepath.Join(corpus, "kubernetes", "valid"))...)
	files = append(files, corpusFiles(t, "../examples")...)
	if len(files) == 0 {
		t.Fatal("no valid corpus files")
	}
	for _, file := range files {
		rel, _ := filepath.Rel("..", file)
		t.Run(rel, func(t *testing.T) {
			want := readExpectations(t, file)
			got, all := reported(validateFile(t, v, file))
			for _, e := range want {
				if !isWarningRule(e.Rule) {
					t.Errorf("a valid case may only expect warnings, not %v", e)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("a valid manifest must have no findings but the expected warnings\n  want %v\n  got  %v\n  reported:%s", want, got, describe(all))
			}
		})
	}
}

func isWarningRule(id string) bool {
	r, ok := spec.Lookup(id)
	return ok && r.IsRule() && r.Severity == spec.Warning
}

func TestGoldenUpdateCorpus(t *testing.T) {
	v := newTestValidator(t)
	dirs, err := os.ReadDir(filepath.Join(corpus, "update"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("read update corpus: %v", err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(corpus, "update", d.Name())
		t.Run("update/"+d.Name(), func(t *testing.T) {
			newFile := filepath.Join(dir, "new.yaml")
			want := readExpectations(t, newFile)
			results, err := v.Update(filepath.Join(dir, "old.yaml"), newFile)
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			got, all := reported(results)
			if !slices.Equal(got, want) {
				t.Errorf("findings differ\n  want %v\n  got  %v\n  reported:%s", want, got, describe(all))
			}
		})
	}
}

// TestTheValidatorAndRunAgreeOnTheCorpus holds the validator to the decoder `podspec run` uses
// on every corpus file and on a pod with each numeric edge in each duration field: whatever run
// cannot decode is an error the validator reports where it stands.
func TestTheValidatorAndRunAgreeOnTheCorpus(t *testing.T) {
	v, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var inputs [][]byte
	for _, dir := range []string{"valid", "invalid", "update"} {
		for _, file := range corpusFiles(t, filepath.Join(corpus, dir)) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, data)
		}
	}
	inputs = append(inputs, numericEdgeSeeds()...)
	for _, data := range inputs {
		checkRunAgrees(t, data, v.Bytes("corpus.yaml", data))
	}
}
