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
		{"a single clause is rejected", clausesYAML("[{key: do, text: \"MUST do it\"}]"), anchored, "a single clause"},
		{"a clause key that is no label value is rejected", clausesYAML("[{key: do/it, text: \"MUST do\"}, {key: it, text: \"it\"}]"), anchored, "does not match"},
		{"a clause key used twice is rejected", clausesYAML("[{key: do, text: \"MUST do\"}, {key: do, text: \"it\"}]"), anchored, "used twice"},
		{"a clause without text is rejected", clausesYAML("[{key: do, text: \"MUST do\"}, {key: it, text: \" \"}]"), anchored, "no text"},
		{"a clause whose text is not in the sentence is rejected", clausesYAML("[{key: do, text: \"MUST do\"}, {key: undo, text: \"MUST undo\"}]"), anchored, "does not occur in the sentence"},
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

func TestClausesBecomeConstantsAndEntries(t *testing.T) {
	fsys := fstest.MapFS{
		"requirements.yaml": {Data: []byte(clausesYAML("[{key: do, text: \"A runtime MUST do\"}, {key: the-thing, text: \"do  it\"}]"))},
		"spec.md":           {Data: []byte("- <a name=\"A-001\"></a>**A-001** A runtime MUST do it.\n")},
	}
	reqs, err := load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	src, err := renderCatalog(reqs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`A001TheThing = "A-001.the-thing"`,
		`{ID: A001Do, Requirement: A001, Key: "do", Text: "A runtime MUST do"}`,
		`{ID: A001TheThing, Requirement: A001, Key: "the-thing", Text: "do it"}`,
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the catalog lacks %s:\n%s", want, src)
		}
	}
}

// clausesYAML is entryYAML of a runtime requirement A-001 with the given clauses (a YAML flow list).
func clausesYAML(clauses string) string {
	return entryYAML("A-001", "MUST", "A", "core", "runtime") + "    clauses: " + clauses + "\n"
}

func entryYAML(id, level, area, profile, by string) string {
	return fmt.Sprintf("requirements:\n  - id: %s\n    level: %s\n    area: %s\n    profile: %s\n    since: \"0.1\"\n    enforcedBy: [%s]\n    text: \"A runtime MUST do it.\"\n", id, level, area, profile, by)
}
