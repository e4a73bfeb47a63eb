package cue_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	podcue "podspec.dev/podspec/cue"
	"podspec.dev/podspec/schema"
	"podspec.dev/podspec/schema/oracle"
)

// TestEnginesAgreeOnMutatedDocuments mutates the valid corpus at random (a fixed seed): wrong
// types, bad strings, negative and huge numbers, unknown fields, removed fields, several at
// once. Both engines must report the same rules at the same paths for every mutant.
func TestEnginesAgreeOnMutatedDocuments(t *testing.T) {
	docs := corpusDocuments(t, "../testdata/valid", "../examples")
	rng := rand.New(rand.NewPCG(1, 2))
	n := 200
	if testing.Short() {
		n = 40
	}
	for i := 0; i < n; i++ {
		d := docs[rng.IntN(len(docs))]
		v, desc := oracle.Mutant(rng, d.Value)
		js := keys(schema.Violations(d.Kind, v))
		cu := keys(podcue.Violations(d.Kind, v))
		if !slices.Equal(js, cu) {
			t.Errorf("mutant %d of %s (%v): the engines disagree\n  jsonschema: %q\n  cue:        %q", i, d.File, desc, js, cu)
		}
	}
}
