package certreport

import (
	"path/filepath"
	"testing"

	"podspec.dev/podspec/spec"
)

// TestCommittedTriageFilesLoad reads every triage file the published pages are generated from
// (docs/certification/triage): each must load as the generator reads it, and name only
// requirements of the catalog, so that a page can be rendered from it and a mistyped ID fails
// here rather than as a reason nobody sees.
func TestCommittedTriageFilesLoad(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "certification", "triage", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no triage files found (%v)", err)
	}
	for _, f := range files {
		tr, err := LoadTriage(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		// A run with no failure has no reasons (runc's), but every page has a title and a command.
		if tr.Title == "" || tr.Command == "" {
			t.Errorf("%s: no title or no command", f)
		}
		for id := range tr.Reasons {
			if !spec.Known(id) {
				t.Errorf("%s: %s is not a requirement of the catalog", f, id)
			}
		}
	}
}
