package validator

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/manifest"
)

// The result of every valid corpus document carries the typed object the semantic checks
// validated: the document decoded and defaulted, exactly as decoding it again would give.
func TestResultCarriesTheDecodedDefaultedObject(t *testing.T) {
	v, err := New(Options{Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, file := range corpusFiles(t, filepath.Join(corpus, "valid")) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		docs, _ := manifest.Decode(file, data, manifest.DefaultLimits())
		results := v.Bytes(file, data)
		if len(results) != len(docs) {
			t.Fatalf("%s: %d results for %d documents", file, len(results), len(docs))
		}
		for i, d := range docs {
			r := results[i]
			switch d.Kind {
			case v1alpha1.KindPod:
				want, err := d.Pod()
				if err != nil {
					t.Fatal(err)
				}
				want.SetDefaults()
				if !reflect.DeepEqual(r.Pod, want) || r.Notification != nil {
					t.Errorf("%s #%d: result Pod %+v, want %+v", file, i, r.Pod, want)
				}
			case v1alpha1.KindNotification:
				want, err := d.Notification()
				if err != nil {
					t.Fatal(err)
				}
				want.SetDefaults()
				if !reflect.DeepEqual(r.Notification, want) || r.Pod != nil {
					t.Errorf("%s #%d: result Notification %+v, want %+v", file, i, r.Notification, want)
				}
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no valid corpus documents")
	}
}

func TestResultHasNoObjectWhenTheValuesDoNotFit(t *testing.T) {
	v, err := New(Options{Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"wrong type": "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: 7}\n",
		"wrong kind": "apiVersion: podspec.dev/v1alpha1\nkind: Deployment\nmetadata: {name: a}\n",
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			results := v.Bytes("pod.yaml", []byte(doc))
			if len(results) != 1 || results[0].Pod != nil || results[0].Notification != nil || len(results[0].Findings) == 0 {
				t.Errorf("results %+v: want one with findings and no object", results)
			}
		})
	}
}

// With the schema engine alone nothing decodes the typed object, and the result has none; nor
// does a result without Options.Objects.
func TestResultHasNoObjectWithoutTheSemanticEngine(t *testing.T) {
	v, err := New(Options{Engines: []string{EngineSchema}, Objects: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../examples/demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range append(v.Bytes("demo.yaml", data), newTestValidator(t).Bytes("demo.yaml", data)...) {
		if r.Pod != nil || r.Notification != nil {
			t.Errorf("%s #%d has a typed object", r.File, r.Document)
		}
	}
}
