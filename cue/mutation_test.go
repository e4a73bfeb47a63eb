package cue_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	podcue "podspec.dev/podspec/cue"
	"podspec.dev/podspec/schema"
)

// paths lists the JSON-pointer tokens of every value in a document.
func paths(v any, prefix []string, out *[][]string) {
	*out = append(*out, prefix)
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			paths(x[k], append(slices.Clip(prefix), k), out)
		}
	case []any:
		for i, e := range x {
			paths(e, append(slices.Clip(prefix), strconv.Itoa(i)), out)
		}
	}
}

// clone deep-copies a decoded document.
func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = clone(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = clone(e)
		}
		return l
	}
	return v
}

// set replaces (or, with del, removes) the value at toks; a map key that does not exist is added.
func set(root any, toks []string, val any, del bool) any {
	if len(toks) == 0 {
		return val
	}
	parent, _ := schema.Lookup(root, toks[:len(toks)-1])
	last := toks[len(toks)-1]
	switch p := parent.(type) {
	case map[string]any:
		if del {
			delete(p, last)
		} else {
			p[last] = val
		}
	case []any:
		if i, err := strconv.Atoi(last); err == nil && i < len(p) {
			p[i] = val
		}
	}
	return root
}

// TestEnginesAgreeOnMutatedDocuments mutates the valid corpus at random (a fixed seed): wrong
// types, bad strings, negative and huge numbers, unknown fields, removed fields, several at
// once. Both engines must report the same rules at the same paths for every mutant.
func TestEnginesAgreeOnMutatedDocuments(t *testing.T) {
	docs := corpusDocuments(t, "../testdata/valid", "../examples")
	rng := rand.New(rand.NewPCG(1, 2))
	values := []any{"", "x", "Bad_Name", "SIGKILL", "sigterm", "-1", "1x", "oci:", "/", "a b", int64(-1), int64(0), int64(1),
		float64(1.5), float64(3e9), true, nil, map[string]any{}, []any{}, []any{"a"}, map[string]any{"bogus": int64(1)}}
	n := 200
	if testing.Short() {
		n = 40
	}
	for i := 0; i < n; i++ {
		d := docs[rng.IntN(len(docs))]
		v := clone(d.Value)
		var desc []string
		for m := 0; m <= rng.IntN(6); m++ {
			var ps [][]string
			paths(v, nil, &ps)
			p := ps[1+rng.IntN(len(ps)-1)]
			switch rng.IntN(4) {
			case 0:
				v = set(v, p, nil, true)
				desc = append(desc, fmt.Sprintf("delete %q", p))
			case 1:
				q := append(slices.Clip(p[:len(p)-1]), "bogusField")
				v = set(v, q, int64(1), false)
				desc = append(desc, fmt.Sprintf("add %q", q))
			default:
				val := clone(values[rng.IntN(len(values))])
				v = set(v, p, val, false)
				desc = append(desc, fmt.Sprintf("set %q = %#v", p, val))
			}
		}
		js := keys(schema.Violations(d.Kind, v))
		cu := keys(podcue.Violations(d.Kind, v))
		if !slices.Equal(js, cu) {
			t.Errorf("mutant %d of %s (%v): the engines disagree\n  jsonschema: %q\n  cue:        %q", i, d.File, desc, js, cu)
		}
	}
}
