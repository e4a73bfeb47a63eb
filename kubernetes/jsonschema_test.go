package kubernetes

import (
	"bytes"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The JSON Schema handed to other validators says what the strict decoder says about unknown
// fields, types and enumerations: a general JSON Schema library accepts the corpus's valid
// workloads with it and rejects every corpus document the decoder finds such an error in.
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
	checked := 0
	for _, dir := range []string{"valid", "invalid"} {
		for file, docs := range corpusDocs(t, dir) {
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
