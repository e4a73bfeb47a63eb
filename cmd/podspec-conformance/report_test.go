package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// minimalBundle writes the three files report reads: an environment, a Ginkgo report with one
// failed spec, a coverage matrix with its requirement.
func minimalBundle(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"environment.json": `{"certify":false,"runtime":{"command":["/usr/bin/rt"],"version":{"contractVersion":"1.1","runtime":{"name":"rt","version":"9"},"profiles":["core"]}},"passed":false}`,
		"report.json":      `[{"SuitePath":"/s","SpecReports":[{"LeafNodeType":"It","LeafNodeText":"stops in time","LeafNodeLabels":["req:STOP-010"],"State":"failed","Failure":{"Message":"took 9s"}}]}]`,
		"coverage.json":    `[{"id":"STOP-010","level":"MUST","profile":"core","text":"At the budget end ...","tests":["stops in time"],"verdict":"failed"}]`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReportVerb(t *testing.T) {
	bundle := minimalBundle(t)
	out := filepath.Join(t.TempDir(), "report.html")
	if code := run([]string{"report", bundle, "-o", out}); code != 0 {
		t.Fatalf("report: exit %d", code)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "rt 9", "STOP-010", "took 9s"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	matrix := filepath.Join(t.TempDir(), "matrix.html")
	if code := run([]string{"report", "--matrix", bundle, bundle, "-o", matrix}); code != 0 {
		t.Fatalf("report --matrix: exit %d", code)
	}
	if page, _ := os.ReadFile(matrix); strings.Count(string(page), `<th class="col"`) != 2 {
		t.Error("the matrix of two bundles has not two columns")
	}
}

func TestReportVerbFailures(t *testing.T) {
	bundle := minimalBundle(t)
	missingDir := filepath.Join(t.TempDir(), "no", "such", "dir", "report.html")
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"no bundle", []string{"report"}, 2},
		{"two bundles without --matrix", []string{"report", bundle, bundle}, 2},
		{"--matrix without bundles", []string{"report", "--matrix"}, 2},
		{"a directory that is no bundle", []string{"report", t.TempDir(), "-o", "-"}, 1},
		{"an output that cannot be written", []string{"report", bundle, "-o", missingDir}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code := run(tc.args); code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
		})
	}
}
