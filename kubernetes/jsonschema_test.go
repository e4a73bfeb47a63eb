package kubernetes

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"podspec.dev/podspec/internal/corpustest"
	"podspec.dev/podspec/manifest"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The JSON Schema handed to other validators says what the strict decoder says about unknown
// fields, types, enumerations and null (absent, as in Kubernetes): a general JSON Schema library
// accepts the valid workloads of the test corpus and of the real-world corpus
// (../shared/realworld) with it and rejects every document the decoder finds such an error in.
func TestJSONSchemaAgreesWithTheStrictDecoder(t *testing.T) {
	compiled := map[string]*jsonschema.Schema{}
	schemaOf := func(kind string) *jsonschema.Schema {
		if s, ok := compiled[kind]; ok {
			return s
		}
		b, err := JSONSchema(kind)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(kind+".json", doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile(kind + ".json")
		if err != nil {
			t.Fatalf("compile the %s schema: %v", kind, err)
		}
		compiled[kind] = s
		return s
	}
	corpora := []map[string][]*manifest.Document{corpusDocs(t, "valid"), corpusDocs(t, "invalid")}
	if dir := corpustest.RealWorldDir(".."); dir != "" {
		corpora = append(corpora, realWorldDocs(t, filepath.Join(dir, "corpus")))
	} else {
		t.Log("the real-world corpus is not on this machine: the test corpus alone")
	}
	checked := 0
	for _, corpus := range corpora {
		for file, docs := range corpus {
			for _, d := range docs {
				if Classify(d.APIVersion, d.Kind) != Modelled || d.Kind == kindList {
					continue
				}
				if _, err := lookupKind(d.APIVersion, d.Kind, Newest()); err != nil {
					continue // KUBE-001: no schema for that version
				}
				_, errs := Decode(d.Value, Newest())
				schemaErrs := 0
				for _, e := range errs {
					if e.Rule == ruleUnknown || e.Rule == ruleVersionField || e.Rule == ruleType || e.Rule == ruleEnum || e.Rule == ruleRequired {
						schemaErrs++
					}
				}
				libErr := schemaOf(d.Kind).Validate(d.Value)
				checked++
				if (schemaErrs == 0) != (libErr == nil) {
					t.Errorf("%s document %d: the decoder finds %d schema errors (%v), the JSON Schema says %v", file, d.Index, schemaErrs, errs, libErr)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d documents", checked)
	}
}

// realWorldDocs decodes every manifest of the real-world corpus, by file.
func realWorldDocs(t *testing.T, dir string) map[string][]*manifest.Document {
	t.Helper()
	out := map[string][]*manifest.Document{}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" && ext != ".json" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[path], _ = manifest.Decode(path, data, manifest.DefaultLimits())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
