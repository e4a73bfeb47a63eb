package cue_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	podcue "podspec.dev/podspec/cue"
	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/schema"
)

// corpusDocuments decodes every YAML and JSON file under the given directories (as the
// validator does, with package manifest) and returns the documents whose apiVersion and kind
// name a podspec kind; the pipeline reports the others before any engine runs.
func corpusDocuments(t *testing.T, dirs ...string) []*manifest.Document {
	t.Helper()
	var docs []*manifest.Document
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
			default:
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			ds, _ := manifest.Decode(path, data, manifest.DefaultLimits())
			for _, doc := range ds {
				if doc.APIVersion == "podspec.dev/v1alpha1" && (doc.Kind == "Pod" || doc.Kind == "Notification") {
					docs = append(docs, doc)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walk %s: %v", dir, err)
		}
	}
	if len(docs) == 0 {
		t.Fatalf("no documents under %v", dirs)
	}
	return docs
}

// key renders a violation's rule, path and key flag for comparison.
func keys(vs []schema.Violation) []string {
	var out []string
	for _, e := range schema.Errors(vs) {
		s := e.Rule + " " + e.Field.String()
		if e.OnKey {
			s += " @key"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestEnginesAgreeOnTheCorpus runs both engines over every document of the corpus and the
// examples: they must agree on whether it is valid and report the same rules at the same paths.
func TestEnginesAgreeOnTheCorpus(t *testing.T) {
	docs := corpusDocuments(t, "../testdata/valid", "../testdata/invalid", "../testdata/update", "../examples")
	for _, d := range docs {
		js := keys(schema.Violations(d.Kind, d.Value))
		cu := keys(podcue.Violations(d.Kind, d.Value))
		if !slices.Equal(js, cu) {
			t.Errorf("%s (document %d): the engines disagree\n  jsonschema: %q\n  cue:        %q", d.File, d.Index, js, cu)
		}
	}
}

// TestValidCorpusAndExamplesPassBothEngines checks that the documents every other part of the
// project treats as valid pass the structural rules.
func TestValidCorpusAndExamplesPassBothEngines(t *testing.T) {
	for _, d := range corpusDocuments(t, "../testdata/valid", "../examples") {
		for _, eng := range engines {
			if errs := eng.validate(d.Kind, d.Value); len(errs) > 0 {
				t.Errorf("%s (document %d): %s reports\n%s", d.File, d.Index, eng.name, dump(errs))
			}
		}
	}
}
