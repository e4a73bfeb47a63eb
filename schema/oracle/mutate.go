package oracle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"podspec.dev/podspec/schema"
)

// mutantValues are the values a mutation writes: wrong types, bad strings and timestamps,
// negative, zero, fractional and huge numbers, empty and unexpected collections.
var mutantValues = []any{"", "x", "Bad_Name", "SIGKILL", "sigterm", "-1", "1x", "oci:", "/", "a b",
	"2026-11-30T12:00:00Z", "2026-02-30T12:00:00Z", int64(-1), int64(0), int64(1), float64(1.5), float64(3e9),
	true, nil, map[string]any{}, []any{}, []any{"a"}, map[string]any{"bogus": int64(1)}}

// Mutant returns a mutated deep copy of a decoded document and a description of what changed:
// one to six edits, each removing a value, adding an unknown field beside one, or replacing one
// with a value from a fixed list. The same rng state gives the same mutant.
func Mutant(rng *rand.Rand, doc any) (any, []string) {
	v := Clone(doc)
	var desc []string
	for m := 0; m <= rng.IntN(6); m++ {
		ps := Paths(v)
		if len(ps) < 2 {
			break
		}
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
			val := Clone(mutantValues[rng.IntN(len(mutantValues))])
			v = set(v, p, val, false)
			desc = append(desc, fmt.Sprintf("set %q = %#v", p, val))
		}
	}
	return v, desc
}

// Paths lists the JSON-pointer tokens of every value in a decoded document, the document
// itself first, in a stable order.
func Paths(v any) [][]string {
	var out [][]string
	paths(v, nil, &out)
	return out
}

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

// Clone deep-copies a decoded document.
func Clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = Clone(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = Clone(e)
		}
		return l
	}
	return v
}

// Set replaces the value at toks within root (a map key that does not exist is added) and
// returns root, which is val itself when toks is empty.
func Set(root any, toks []string, val any) any { return set(root, toks, val, false) }

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
