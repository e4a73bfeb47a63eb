package oracle_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"podspec.dev/podspec/schema"
)

// generator builds random documents from a kind's schema itself, so that every keyword is met,
// often broken and often kept: optional properties come and go (which sets none, one or several
// fields of an "exactly one of" and of a "not both"), strings and numbers are drawn from pools
// around every pattern and bound, and a few values of every kind are of the wrong type.
type generator struct {
	rng  *rand.Rand
	doc  map[string]any
	nums []any
}

// strs is the pool strings are drawn from: values that match each pattern of the API and
// values that do not.
var strs = []string{"", "web", "db-1", "Bad_Name", "a b", "-x", strings.Repeat("a", 64), "example.com/tier",
	"app", "SIGTERM", "SIGRTMIN+3", "sigterm", "oci:images/app", "oci:", "docker.io/x", "/data", "data",
	"500m", "1.5", "2", "+.5e3Ki", "1x", "PATH", "A=B", "podspec.dev/v1alpha1", "Pod", "Always", "Ready",
	"2026-11-30T12:00:00Z", "2026-11-30t12:00:00.5z", "2026-02-29T12:00:00Z", "2024-02-29T23:59:60Z",
	"2026-11-30T23:59:60+01:00", "2026-11-30T12:00:00+0100", "2026-13-01T00:00:00Z", "yesterday"}

func newGenerator(t testing.TB, kind string, seed uint64) *generator {
	var doc map[string]any
	d := json.NewDecoder(strings.NewReader(string(schema.JSON(kind))))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	g := &generator{rng: rand.New(rand.NewPCG(seed, 7)), doc: doc}
	g.nums = []any{int64(-1), int64(0), int64(1), int64(2), float64(0.5), float64(1.5), int64(65535), int64(65536),
		int64(2147483647), int64(2147483648), float64(3e9), float64(-0.25)}
	return g
}

func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

// value returns a random value for the schema s; depth bounds the recursion.
func (g *generator) value(s any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || depth > 12 {
		return g.wrong()
	}
	if g.chance(0.03) {
		return g.wrong()
	}
	if ref, ok := m["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		return g.value(g.doc["$defs"].(map[string]any)[name], depth+1)
	}
	if c, ok := m["const"]; ok {
		return g.pick(c)
	}
	if e, ok := m["enum"].([]any); ok {
		return g.pick(e[g.rng.IntN(len(e))])
	}
	if m["type"] == nil {
		// A value constrained only by its branches: follow a random anyOf branch, or the
		// allOf branch that declares the value's type.
		if alts, ok := m["anyOf"].([]any); ok {
			return g.value(alts[g.rng.IntN(len(alts))], depth+1)
		}
		if all, ok := m["allOf"].([]any); ok {
			for _, a := range all {
				if a.(map[string]any)["type"] != nil {
					return g.value(a, depth+1)
				}
			}
		}
	}
	var types []string
	switch t := m["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			types = append(types, x.(string))
		}
	}
	if len(types) == 0 {
		return g.wrong()
	}
	switch types[g.rng.IntN(len(types))] {
	case "object":
		return g.object(m, depth)
	case "array":
		n := g.rng.IntN(4)
		if mx, ok := m["maxItems"].(json.Number); ok && g.chance(0.3) {
			i, _ := mx.Int64()
			n = int(i) + g.rng.IntN(2)
		}
		out := make([]any, n)
		for i := range out {
			out[i] = g.value(m["items"], depth+1)
		}
		return out
	case "string":
		return g.pick(strs[g.rng.IntN(len(strs))])
	case "integer", "number":
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if b, ok := m[k].(json.Number); ok && g.chance(0.5) {
				i, err := b.Int64()
				if err != nil {
					return float64(0.5)
				}
				return i + int64(g.rng.IntN(3)) - 1
			}
		}
		return g.nums[g.rng.IntN(len(g.nums))]
	case "boolean":
		return g.chance(0.5)
	case "null":
		return nil
	}
	return g.wrong()
}

// object fills an object: required properties usually, optional ones half the time, a key
// for each pattern property, and now and then a key the schema does not declare.
func (g *generator) object(m map[string]any, depth int) map[string]any {
	out := map[string]any{}
	required := map[string]bool{}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			required[r.(string)] = true
		}
	}
	props, _ := m["properties"].(map[string]any)
	for name, p := range props {
		if required[name] && g.chance(0.95) || !required[name] && g.chance(0.45) {
			out[name] = g.value(p, depth+1)
		}
	}
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for _, p := range pp {
			for i := g.rng.IntN(3); i > 0; i-- {
				out[strs[g.rng.IntN(len(strs))]] = g.value(p, depth+1)
			}
		}
	}
	if g.chance(0.05) {
		out["bogusField"] = int64(1)
	}
	return out
}

// pick returns v, or now and then a value near it.
func (g *generator) pick(v any) any {
	if g.chance(0.1) {
		return strs[g.rng.IntN(len(strs))]
	}
	if n, ok := v.(json.Number); ok {
		i, _ := n.Int64()
		return i
	}
	return v
}

// wrong returns a value of any type.
func (g *generator) wrong() any {
	switch g.rng.IntN(6) {
	case 0:
		return nil
	case 1:
		return true
	case 2:
		return g.nums[g.rng.IntN(len(g.nums))]
	case 3:
		return []any{"a"}
	case 4:
		return map[string]any{}
	}
	return strs[g.rng.IntN(len(strs))]
}

// TestTheEngineAgreesWithTheLibraryOnGeneratedDocuments generates documents of every kind from
// its schema and requires identical violations from both; it also checks that the documents
// reach every kind of violation, so that the comparison covers every keyword.
func TestTheEngineAgreesWithTheLibraryOnGeneratedDocuments(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	seen := map[schema.ViolationKind]int{}
	valid := 0
	for ki, kind := range schema.Kinds() {
		g := newGenerator(t, kind, uint64(ki))
		for i := 0; i < n; i++ {
			v := g.value(map[string]any(g.doc), 0)
			agree(t, fmt.Sprintf("%s document %d", kind, i), kind, v)
			vs := schema.Violations(kind, v)
			if len(vs) == 0 {
				valid++
			}
			for _, x := range vs {
				seen[x.Kind]++
			}
		}
	}
	for k := schema.Missing; k < schema.Other; k++ {
		if seen[k] == 0 {
			t.Errorf("no generated document has a violation of kind %d", k)
		}
	}
	if valid == 0 {
		t.Error("no generated document is valid")
	}
	t.Logf("%d valid documents; violations by kind: %v", valid, seen)
}
