package certreport

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"podspec.dev/podspec/conformance/certify"
	"podspec.dev/podspec/conformance/suites"
)

// The bundles in testdata come from real conformance runs (testdata/record.sh): failing is a
// mutant build whose SIGKILL comes 3 s after the budget end, passing the normal build.

// unpack extracts testdata/NAME.tar.gz into a temporary directory and returns it.
func unpack(t testing.TB, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(h.Name)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func load(t testing.TB, name string) *Bundle {
	t.Helper()
	b, err := Load(unpack(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func render(t testing.TB, b *Bundle) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// failedIDs are the requirements the bundle's coverage matrix says failed.
func failedIDs(b *Bundle) []string {
	var ids []string
	for _, r := range b.Coverage {
		if r.Verdict == suites.VerdictFailed {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

func TestAFailingBundleShowsEveryFailureWithItsRequirementsAssertionAndTimeline(t *testing.T) {
	b := load(t, "failing")
	page := render(t, b)
	if !strings.Contains(page, `data-verdict="failed"`) {
		t.Error("the verdict is not failed")
	}
	ids := failedIDs(b)
	if len(ids) == 0 {
		t.Fatal("the failing bundle has no failed requirement")
	}
	sections := regexp.MustCompile(`(?s)<section class="failure" id="failure-\d+" data-requirements="([^"]*)">(.*?)</section>`).FindAllStringSubmatch(page, -1)
	if len(sections) == 0 {
		t.Fatal("no failure section")
	}
	shown := map[string]bool{}
	for _, s := range sections {
		for _, id := range strings.Fields(s[1]) {
			shown[id] = true
		}
		body := s[2]
		if !strings.Contains(body, `class="assertion"`) || !strings.Contains(body, "over the budget") {
			t.Error("a failure section does not quote its assertion")
		}
		if !strings.Contains(body, `<svg xmlns="http://www.w3.org/2000/svg" class="podspec-timeline"`) || !strings.Contains(body, `class="budget-span"`) {
			t.Error("a failure section has no timeline with its budget")
		}
	}
	for _, id := range ids {
		if !shown[id] {
			t.Errorf("failed requirement %s has no failure section", id)
		}
		// Its sentence is quoted.
		for _, r := range b.Coverage {
			if r.ID == id && !strings.Contains(page, escapeHTML(r.Text)) {
				t.Errorf("the sentence of %s is not on the page", id)
			}
		}
	}
	for _, bad := range []string{"<script", "<link", "<img", "@import", "url(", "<iframe"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("the page contains %s", bad)
		}
	}
}

// escapeHTML is what html/template makes of plain text in an element.
func escapeHTML(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;")
	return r.Replace(s)
}

func TestAPassingBundleHasNoFailures(t *testing.T) {
	b := load(t, "passing")
	page := render(t, b)
	if !strings.Contains(page, `data-verdict="passed"`) {
		t.Error("the verdict is not passed")
	}
	if strings.Contains(page, `class="failure"`) {
		t.Error("a passing bundle shows a failure")
	}
	// A filtered run is never shown as a certification, and its unselected specs are "not run".
	if strings.Contains(page, "certified") || !strings.Contains(page, "not a --certify run") || !strings.Contains(page, "not run (selection)") {
		t.Error("a filtered run is not marked as such")
	}
	if n := strings.Count(page, `data-verdict="passed"><td class="id">`); n == 0 {
		t.Error("no passed requirement in the matrix")
	}
}

func TestASealedCertificationIsShownCertifiedAndATamperedOneIsNot(t *testing.T) {
	dir := unpack(t, "passing")
	// Make it look like a certification run and seal it.
	env := filepath.Join(dir, certify.EnvironmentFile)
	data, _ := os.ReadFile(env)
	data = bytes.Replace(data, []byte(`"certify": false`), []byte(`"certify": true`), 1)
	data = regexp.MustCompile(`"selection": \{[^}]*\}`).ReplaceAll(data, []byte(`"selection": {}`))
	os.WriteFile(env, data, 0o644)
	if err := certify.Seal(dir); err != nil {
		t.Fatal(err)
	}
	b, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if page := render(t, b); !strings.Contains(page, `data-verdict="certified"`) {
		t.Error("a sealed passing certify run is not shown certified")
	}
	os.WriteFile(filepath.Join(dir, certify.SuiteLogFile), []byte("edited"), 0o644)
	if b, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	page := render(t, b)
	if strings.Contains(page, `data-verdict="certified"`) || !strings.Contains(page, "suite.log was modified") {
		t.Error("a tampered bundle is shown certified")
	}
}

func TestHostileBundleTextCannotInjectMarkup(t *testing.T) {
	b := load(t, "failing")
	evil := `<script>alert(1)</script><img src=x onerror=alert(2)>`
	b.Version.Runtime.Name = evil
	b.Env.Runtime.Command = []string{evil}
	b.Env.Host.OS = evil
	for i := range b.Report.SpecReports {
		sr := &b.Report.SpecReports[i]
		if sr.State.Is(types.SpecStateFailureStates) {
			sr.LeafNodeText = evil
			sr.Failure.Message = evil + "</pre><script>x()</script>"
		}
	}
	b.Coverage[0].Text = evil
	b.Coverage[0].Tests = []string{evil}
	for _, page := range []string{render(t, b), renderMatrix(t, b)} {
		if strings.Contains(page, "<script") || strings.Contains(page, "<img") {
			t.Errorf("hostile text reached the markup")
		}
		if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Error("the hostile text is not shown escaped")
		}
	}
}

func renderMatrix(t testing.TB, bs ...*Bundle) string {
	t.Helper()
	var buf bytes.Buffer
	if err := RenderMatrix(&buf, bs); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestTheMatrixHasAColumnPerBundleAndEachRequirementsVerdictInIt(t *testing.T) {
	pass, fail := load(t, "passing"), load(t, "failing")
	fail.Version.Runtime.Name = "mutant"
	page := renderMatrix(t, pass, fail)
	cols := regexp.MustCompile(`<th class="col" data-runtime="([^"]*)">`).FindAllStringSubmatch(page, -1)
	if len(cols) != 2 || cols[0][1] != escapeHTML(pass.RuntimeName()) || !strings.HasPrefix(cols[1][1], "mutant 0.1.0 on runc ") {
		t.Fatalf("columns %v", cols)
	}
	row := regexp.MustCompile(`(?s)<tr class="req" data-id="STOP-010">(.*?)</tr>`).FindStringSubmatch(page)
	if row == nil {
		t.Fatal("no row for STOP-010")
	}
	cells := regexp.MustCompile(`data-verdict="([^"]*)"`).FindAllStringSubmatch(row[1], -1)
	if len(cells) != 2 || cells[0][1] != classPassed || cells[1][1] != classFailed {
		t.Errorf("STOP-010 cells %v, want passed, failed", cells)
	}
	if n := strings.Count(page, `<tr class="req"`); n != len(pass.Coverage) {
		t.Errorf("%d rows, want %d", n, len(pass.Coverage))
	}
}

func TestLoadRefusesAnIncompleteBundle(t *testing.T) {
	for _, f := range []string{certify.EnvironmentFile, certify.ReportFile, certify.CoverageJSON} {
		t.Run(f, func(t *testing.T) {
			dir := unpack(t, "passing")
			os.Remove(filepath.Join(dir, f))
			if _, err := Load(dir); err == nil {
				t.Errorf("Load without %s succeeded", f)
			}
			os.WriteFile(filepath.Join(dir, f), []byte("{not json"), 0o644)
			if _, err := Load(dir); err == nil {
				t.Errorf("Load with a broken %s succeeded", f)
			}
		})
	}
}
