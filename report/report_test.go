package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validator"
)

func sampleResults() []*validator.Result {
	return []*validator.Result{
		{
			File: "pods/web.yaml", Document: 0, Kind: "Pod", Name: "web",
			Findings: []finding.Finding{
				{Rule: "MAN-002", Severity: finding.Error, Engine: "schema", Path: "spec.restartPolicy",
					Message: "must be one of Always, OnFailure, Never", Pos: finding.Position{File: "pods/web.yaml", Line: 6, Column: 18}},
				{Rule: "MAN-008", Severity: finding.Warning, Engine: "decode",
					Message: "ambiguous plain scalar \"on\", quote it", Pos: finding.Position{File: "pods/web.yaml", Line: 9, Column: 12}},
				{Rule: "EXIT-001", Severity: finding.Warning, Engine: "semantic", Message: "never fires",
					Pos: finding.Position{File: "pods/web.yaml", Line: 7, Column: 3}, Suppressed: true, SuppressedReason: "on purpose"},
			},
			Lines: map[int]string{6: "  restartPolicy: Sometimes", 9: "\tmode:    on"},
		},
		{File: "pods/web.yaml", Document: 1, Kind: "Notification", Name: "n"},
		{
			File: "big.yaml",
			Findings: []finding.Finding{{Rule: "MAN-007", Severity: finding.Error, Engine: "decode",
				Message: "input too large", Pos: finding.Position{File: "big.yaml"}}},
		},
	}
}

func sampleSummary() validator.Summary {
	s := validator.Summary{Files: 2, Documents: 3}
	for _, r := range sampleResults() {
		s.Add(r)
	}
	return s
}

func render(t *testing.T, format string, results []*validator.Result, o Options) string {
	t.Helper()
	var b bytes.Buffer
	w, err := New(format, &b, o)
	if err != nil {
		t.Fatalf("New(%q): %v", format, err)
	}
	for _, r := range results {
		if err := w.Result(r); err != nil {
			t.Fatalf("Result: %v", err)
		}
	}
	s := validator.Summary{}
	for _, r := range results {
		s.Add(r)
	}
	if err := w.Close(s); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return b.String()
}

func TestSummaryCountsSuppressedApart(t *testing.T) {
	s := sampleSummary()
	if s.Errors != 2 || s.Warnings != 1 || s.Suppressed != 1 {
		t.Errorf("summary %+v, want 2 errors, 1 warning, 1 suppressed", s)
	}
}

func TestTextFormat(t *testing.T) {
	out := render(t, "text", sampleResults(), Options{})
	want := "pods/web.yaml:6:18: error MAN-002: spec.restartPolicy: must be one of Always, OnFailure, Never\n" +
		"    6 |   restartPolicy: Sometimes\n" +
		"      |                  ^\n" +
		"pods/web.yaml:9:12: warning MAN-008: ambiguous plain scalar \"on\", quote it\n" +
		"    9 | \tmode:    on\n" +
		"      | \t          ^\n" +
		"big.yaml: error MAN-007: input too large\n" +
		"0 files, 0 documents: 2 errors, 1 warning, 1 suppressed\n"
	if out != want {
		t.Errorf("text output:\n%s\nwant:\n%s", out, want)
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour escapes without Color")
	}
	if colored := render(t, "text", sampleResults(), Options{Color: true}); !strings.Contains(colored, ansiRed+"error"+ansiReset) {
		t.Errorf("Color did not colour the severity:\n%q", colored)
	}
}

func TestJSONFormatIsAVersionedReport(t *testing.T) {
	out := render(t, "json", sampleResults(), Options{Tool: Tool{Name: "podspec", Version: "1.2.3"}})
	var rep struct {
		Version string `json:"version"`
		Tool    Tool   `json:"tool"`
		Summary validator.Summary
		Results []struct {
			File     string
			Document int
			Kind     string
			Findings []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if rep.Version != ReportVersion || rep.Tool.Version != "1.2.3" || len(rep.Results) != 3 {
		t.Errorf("report header %q %+v, %d results", rep.Version, rep.Tool, len(rep.Results))
	}
	if rep.Results[1].Findings == nil {
		t.Errorf("a clean document's findings should be an empty array, not null")
	}
	f := rep.Results[0].Findings[0]
	if f["rule"] != "MAN-002" || f["position"].(map[string]any)["line"] != float64(6) {
		t.Errorf("first finding %v", f)
	}
	if rep.Summary.Suppressed != 1 {
		t.Errorf("summary %+v", rep.Summary)
	}
	if empty := render(t, "json", nil, Options{}); !strings.Contains(empty, `"results": []`) {
		t.Errorf("a run with no documents must still have a results array:\n%s", empty)
	}
}

func TestJUnitFormat(t *testing.T) {
	out := render(t, "junit", sampleResults(), Options{Tool: Tool{Name: "podspec"}})
	var doc junitSuites
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out)
	}
	if len(doc.Suites) != 2 || doc.Tests != 3 || doc.Failures != 2 {
		t.Fatalf("suites %d tests %d failures %d:\n%s", len(doc.Suites), doc.Tests, doc.Failures, out)
	}
	c := doc.Suites[0].Cases[0]
	if c.Name != "document 0 Pod web" || len(c.Failures) != 1 || c.Failures[0].Type != "MAN-002" ||
		!strings.Contains(c.Failures[0].Text, "pods/web.yaml:6:18") {
		t.Errorf("first case %+v", c)
	}
	if c.SystemOut == nil || !strings.Contains(c.SystemOut.Text, "MAN-008") || !strings.Contains(c.SystemOut.Text, "suppressed: on purpose") {
		t.Errorf("warnings and suppressions should go to system-out: %+v", c.SystemOut)
	}
}

func TestSARIFFormat(t *testing.T) {
	rules := []spec.Requirement{{ID: "MAN-002", Severity: finding.Error, Text: "value must match the schema"},
		{ID: "MAN-007", Severity: finding.Error, Text: "input exceeds a limit"}}
	out := render(t, "sarif", sampleResults(), Options{Tool: Tool{Name: "podspec", Version: "1.2.3", InformationURI: "https://podspec.dev"}, Rules: rules})
	var log map[string]any
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if log["version"] != "2.1.0" || log["$schema"] == nil {
		t.Errorf("header %v %v", log["version"], log["$schema"])
	}
	run := log["runs"].([]any)[0].(map[string]any)
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	if driver["name"] != "podspec" || driver["version"] != "1.2.3" || driver["informationUri"] != "https://podspec.dev" {
		t.Errorf("driver %v", driver)
	}
	if r := driver["rules"].([]any)[0].(map[string]any); r["id"] != "MAN-002" ||
		r["shortDescription"].(map[string]any)["text"] != "value must match the schema" {
		t.Errorf("rule %v", r)
	}
	results := run["results"].([]any)
	if len(results) != 4 {
		t.Fatalf("%d results, want 4 (suppressed findings included)", len(results))
	}
	first := results[0].(map[string]any)
	phys := first["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
	if phys["artifactLocation"].(map[string]any)["uri"] != "pods/web.yaml" {
		t.Errorf("uri %v", phys["artifactLocation"])
	}
	if reg := phys["region"].(map[string]any); reg["startLine"] != float64(6) || reg["startColumn"] != float64(18) {
		t.Errorf("region %v", reg)
	}
	last := results[3].(map[string]any)
	if _, has := last["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["region"]; has {
		t.Errorf("a finding without a position must have no region, got %v", last)
	}
	if sup := results[2].(map[string]any)["suppressions"]; sup == nil {
		t.Errorf("suppressed finding has no suppressions: %v", results[2])
	}
	clean := render(t, "sarif", []*validator.Result{{File: "ok.yaml"}}, Options{Tool: Tool{Name: "podspec", Version: "1"}})
	if !strings.Contains(clean, `"results": []`) {
		t.Errorf("clean SARIF must have an empty results array:\n%s", clean)
	}
}

func TestGitHubFormat(t *testing.T) {
	out := render(t, "github", sampleResults(), Options{})
	want := "::error file=pods/web.yaml,line=6,col=18,title=MAN-002::spec.restartPolicy: must be one of Always, OnFailure, Never\n" +
		"::warning file=pods/web.yaml,line=9,col=12,title=MAN-008::ambiguous plain scalar \"on\", quote it\n" +
		"::error file=big.yaml,title=MAN-007::input too large\n"
	if out != want {
		t.Errorf("github output:\n%s\nwant:\n%s", out, want)
	}
	if got := escapeProperty("a,b:c%\n"); got != "a%2Cb%3Ac%25%0A" {
		t.Errorf("escapeProperty = %q", got)
	}
}

func TestUnknownFormatIsAnError(t *testing.T) {
	if _, err := New("yaml", &bytes.Buffer{}, Options{}); err == nil {
		t.Errorf("New accepted an unknown format")
	}
}

// A document the validator did not check (a Service) is reported as skipped in every format,
// never as a clean document.
func TestEveryFormatReportsASkippedDocument(t *testing.T) {
	results := []*validator.Result{{File: "k8s/svc.yaml", Document: 2, Kind: "Service", Name: "web",
		Findings: []finding.Finding{}, Skipped: "v1 Service is not a kind podspec checks: it carries no pod"}}
	want := map[string][]string{
		"text":   {"1 skipped (1 Service: no pod)"},
		"json":   {`"skipped": "v1 Service is not a kind podspec checks: it carries no pod"`, `"skipped": 1`},
		"junit":  {`skipped="1"`, `<skipped message="v1 Service is not a kind podspec checks: it carries no pod">`},
		"sarif":  {`"toolExecutionNotifications"`, `"text": "document 2 skipped: v1 Service is not a kind podspec checks: it carries no pod"`, `"uri": "k8s/svc.yaml"`},
		"github": {"::notice file=k8s/svc.yaml,title=skipped::document 2: v1 Service is not a kind podspec checks: it carries no pod"},
	}
	for format, wants := range want {
		out := render(t, format, results, Options{Rules: spec.Rules()})
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("%s output lacks %q:\n%s", format, w, out)
			}
		}
	}
}
