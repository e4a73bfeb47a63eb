package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

const docsDir = "../../../docs"

// rendered loads the real registry and renders its catalog.
func rendered(t *testing.T) ([]entry, []byte) {
	t.Helper()
	reqs, err := load(os.DirFS(docsDir))
	if err != nil {
		t.Fatal(err)
	}
	src, err := renderCatalog(reqs)
	if err != nil {
		t.Fatal(err)
	}
	return reqs, src
}

func TestTheCatalogIsCurrent(t *testing.T) {
	reqs, want := rendered(t)
	got, err := os.ReadFile("../../catalog.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("spec/catalog.go is stale: run `go generate ./spec/`")
	}
	md, err := os.ReadFile(docsDir + "/" + validateDoc)
	if err != nil {
		t.Fatal(err)
	}
	wantMD, err := spliceRuleTable(md, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if string(md) != string(wantMD) {
		t.Error("the rule table of docs/validate.md is stale: run `go generate ./spec/`")
	}
}

func TestRenderingIsReproducible(t *testing.T) {
	_, a := rendered(t)
	_, b := rendered(t)
	if string(a) != string(b) {
		t.Error("two renderings of the same registry differ")
	}
}

func TestLoadRejectsABrokenRegistry(t *testing.T) {
	anchored := "# Spec\n\n- <a name=\"A-001\"></a>**A-001** A runtime MUST do it.\n"
	cases := []struct {
		name    string
		yaml    string
		spec    string
		wantErr string
	}{
		{"an unknown field is rejected", "requirements:\n  - id: A-001\n    colour: red\n", anchored, "colour"},
		{"a malformed ID is rejected", entryYAML("A-1", "MUST", "A", "core", "runtime"), anchored, "does not match"},
		{"an area that is not the prefix is rejected", entryYAML("A-001", "MUST", "B", "core", "runtime"), anchored, "area"},
		{"an unknown level is rejected", entryYAML("A-001", "MUST NOT", "A", "core", "runtime"), anchored, "level"},
		{"an unknown profile is rejected", entryYAML("A-001", "MUST", "A", "extra", "runtime"), anchored, "profile"},
		{"an unknown enforcer is rejected", entryYAML("A-001", "MUST", "A", "core", "operator"), anchored, "not validator, runtime or converter"},
		{"a converter requirement enforced by a runtime too is rejected", entryYAML("A-001", "MUST", "A", "core", "converter, runtime"), anchored, "converter alone"},
		{"an unknown enforcer is rejected", entryYAML("A-001", "MUST", "A", "core", "linter"), anchored, "enforcedBy"},
		{"a MAY validator rule is rejected", entryYAML("A-001", "MAY", "A", "core", "validator"), anchored, "not MAY"},
		{"a duplicate ID is rejected", entryYAML("A-001", "MUST", "A", "core", "runtime") + strings.TrimPrefix(entryYAML("A-001", "MUST", "A", "core", "runtime"), "requirements:\n"), anchored, "duplicate"},
		{"an entry anchored nowhere is rejected", entryYAML("A-001", "MUST", "A", "core", "runtime"), "# Spec\n", "anchored nowhere"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"requirements.yaml": {Data: []byte(tc.yaml)},
				"spec.md":           {Data: []byte(tc.spec)},
			}
			_, err := load(fsys)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("load() error = %v, want one mentioning %q", err, tc.wantErr)
			}
		})
	}
}

func TestLoadAttachesTheAnchoringFile(t *testing.T) {
	fsys := fstest.MapFS{
		"requirements.yaml": {Data: []byte(entryYAML("A-001", "MUST", "A", "core", "runtime"))},
		"spec.md":           {Data: []byte("# Spec\n")},
		"spec/a.md":         {Data: []byte("- <a name=\"A-001\"></a>**A-001** A runtime MUST do it.\n")},
	}
	reqs, err := load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 || reqs[0].Source != "spec/a.md" {
		t.Errorf("load() = %+v, want A-001 from spec/a.md", reqs)
	}
}

func TestSpliceNeedsTheMarkers(t *testing.T) {
	if _, err := spliceRuleTable([]byte("# validate\n"), nil); err == nil {
		t.Error("a document without the markers was accepted")
	}
}

func entryYAML(id, level, area, profile, by string) string {
	return fmt.Sprintf("requirements:\n  - id: %s\n    level: %s\n    area: %s\n    profile: %s\n    since: \"0.1\"\n    enforcedBy: [%s]\n    text: \"A runtime MUST do it.\"\n", id, level, area, profile, by)
}
