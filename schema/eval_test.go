package schema

import (
	"math"
	"strings"
	"testing"
)

func TestEveryKindCompiles(t *testing.T) {
	for _, kind := range Kinds() {
		if _, err := kindSchemas[kind](); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
		if _, err := openSchemas[kind](); err != nil {
			t.Errorf("%s, open: %v", kind, err)
		}
	}
}

// TestValidateOpenIgnoresOnlyUnknownFields: ValidateOpen accepts fields the schema does not
// define, at any depth, where Validate reports them, and holds the defined ones to the schema.
func TestValidateOpenIgnoresOnlyUnknownFields(t *testing.T) {
	status := map[string]any{"uid": "u", "phase": "Running", "mine": 1,
		"conditions": []any{map[string]any{"type": "Ready", "status": "True", "mine": "x"}}}
	if errs := Validate("PodStatus", status); len(errs) != 2 {
		t.Errorf("Validate reported %v, want the two unknown fields", errs)
	}
	if errs := ValidateOpen("PodStatus", status); len(errs) != 0 {
		t.Errorf("ValidateOpen reported %v, want nothing", errs)
	}
	status["phase"] = "Mine"
	if errs := ValidateOpen("PodStatus", status); len(errs) != 1 || !strings.Contains(errs[0].Error(), "phase") {
		t.Errorf("ValidateOpen reported %v, want the phase alone", errs)
	}
}

// An object under "not" is not opened: that would make the schema stricter, not laxer.
func TestOpenCompileRefusesAClosedObjectUnderNot(t *testing.T) {
	s := `{"$schema": "https://json-schema.org/draft/2020-12/schema", "not": {"type": "object", "additionalProperties": false}}`
	if _, err := compileSchemaMode([]byte(s), false); err != nil {
		t.Fatal(err)
	}
	if _, err := compileSchemaMode([]byte(s), true); err == nil || !strings.Contains(err.Error(), "under \"not\"") {
		t.Errorf("open compile: %v, want a refusal", err)
	}
}

// The engine implements a closed subset of JSON Schema: whatever it would not check, it
// refuses to compile, so a schema change cannot be silently ignored.
func TestCompileRefusesWhatTheEngineDoesNotImplement(t *testing.T) {
	const head = `{"$schema": "https://json-schema.org/draft/2020-12/schema", `
	for _, tc := range []struct{ schema, want string }{
		{head + `"minLength": 1}`, `keyword "minLength" is not supported`},
		{head + `"properties": {"a": {"uniqueItems": true}}}`, `#/properties/a/uniqueItems: keyword "uniqueItems"`},
		{head + `"format": "email"}`, "format email is not supported"},
		{head + `"$ref": "https://example.com/other.json"}`, "only references into the same document"},
		{head + `"$ref": "#/$defs/Missing"}`, "does not resolve"},
		{head + `"items": false}`, "the schema false is not supported"},
		{head + `"type": "decimal"}`, "unknown type"},
		{head + `"pattern": "("}`, "missing closing )"},
		{`{"$schema": "http://json-schema.org/draft-07/schema#"}`, "only draft 2020-12"},
		{`[]`, "parse"},
	} {
		_, err := compileSchema([]byte(tc.schema))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("compile %s: got %v, want an error containing %q", tc.schema, err, tc.want)
		}
	}
}

func TestRecursiveReferencesTerminate(t *testing.T) {
	n, err := compileSchema([]byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$ref": "#/$defs/Tree", "$defs": {"Tree": {"type": "object", "additionalProperties": false,
		"properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tree := map[string]any{"children": []any{map[string]any{"children": []any{map[string]any{"leaf": true}}}}}
	var e evaluation
	if n.valid(tree, nil, &e) || len(e.out) != 1 || e.out[0].Kind != UnknownField ||
		strings.Join(e.out[0].Tokens, "/") != "children/0/children/0/leaf" {
		t.Fatalf("got %+v", e.out)
	}
}

func TestNaNAndInfinitiesAreNotJSONValues(t *testing.T) {
	for _, v := range []any{nanValue(), infValue()} {
		vs := Violations("PodStatus", map[string]any{"uid": "u", "phase": "Running", "exitCode": v})
		if len(vs) != 1 || vs[0].Kind != Other || vs[0].Want[0] != NotJSONValue {
			t.Errorf("%v: got %+v", v, vs)
		}
	}
}

func nanValue() any { var z float64; return z / z }
func infValue() any { var z float64; return 1 / z }

// BenchmarkCompilePod is what a fresh process pays before validating its first Pod.
func BenchmarkCompilePod(b *testing.B) {
	data := JSON("Pod")
	for b.Loop() {
		if _, err := compileSchema(data); err != nil {
			b.Fatal(err)
		}
	}
}

// An integer is checked against int64 forms of the bounds when they have them; the result must
// be the exact (big.Rat) check's, at and around every bound and at the ends of int64's range.
func TestIntegerBoundsAgreeWithExactBounds(t *testing.T) {
	const head = `{"$schema": "https://json-schema.org/draft/2020-12/schema", `
	for _, body := range []string{
		`"minimum": 1}`, `"maximum": 65535}`, `"minimum": 0, "maximum": 10}`,
		`"exclusiveMinimum": 0}`, `"exclusiveMaximum": 100}`, `"exclusiveMinimum": -5, "exclusiveMaximum": 5}`,
		`"minimum": 1.5}`, `"maximum": 2.5}`, `"minimum": 3, "exclusiveMinimum": 3}`,
		`"exclusiveMaximum": 9223372036854775807}`, `"exclusiveMinimum": -9223372036854775808}`,
		`"maximum": 9223372036854775808}`, `"minimum": -9223372036854775809}`,
	} {
		n, err := compileSchema([]byte(head + body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		exact := *n
		exact.ints = nil
		for _, x := range []int64{math.MinInt64, math.MinInt64 + 1, -6, -5, -4, -1, 0, 1, 2, 3, 4, 9, 10, 11, 99, 100, 101,
			65534, 65535, 65536, math.MaxInt64 - 1, math.MaxInt64} {
			if got, want := n.valid(x, nil, nil), exact.valid(x, nil, nil); got != want {
				t.Errorf("%s: %d valid %v with int bounds %+v, %v exactly", body, x, got, n.ints, want)
			}
		}
	}
}

// An exit code is what a parent reads from wait(2): 0 to 255 wherever a schema has one (the
// pod's, a terminated container's, an event's, a notifier action's).
func TestExitCodesAreBetween0And255(t *testing.T) {
	const ts = "2026-12-02T10:00:00Z"
	docs := map[string]func(code int) (string, map[string]any){
		"PodStatus": func(code int) (string, map[string]any) {
			return "PodStatus", map[string]any{"uid": "u", "phase": "Failed", "exitCode": code}
		},
		"terminated container": func(code int) (string, map[string]any) {
			return "PodStatus", map[string]any{"uid": "u", "phase": "Failed", "containerStatuses": []any{map[string]any{
				"name": "a", "image": "oci:x", "ready": false, "started": false, "restartCount": 0,
				"state": map[string]any{"terminated": map[string]any{"exitCode": code, "reason": "Error", "startedAt": ts, "finishedAt": ts}}}}}
		},
		"Event": func(code int) (string, map[string]any) {
			return "Event", map[string]any{"pod": "p", "podUID": "u", "seq": 1, "time": ts, "type": "PodFinished", "exitCode": code}
		},
		"PodNotificationRecord": func(code int) (string, map[string]any) {
			return "PodNotificationRecord", map[string]any{"pod": "p", "podUID": "u", "notification": "n", "phase": "Failed",
				"containers": []any{map[string]any{"name": "a", "phase": "Failed", "exitCode": code}}}
		},
	}
	for name, doc := range docs {
		for _, code := range []int{0, 1, 137, 255} {
			if kind, v := doc(code); len(Validate(kind, v)) != 0 {
				t.Errorf("%s: exitCode %d refused: %v", name, code, Validate(kind, v))
			}
		}
		for _, code := range []int{-1, 256, 65280} {
			kind, v := doc(code)
			errs := Validate(kind, v)
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), "exitCode") {
				t.Errorf("%s: exitCode %d: got %v, want one finding at exitCode", name, code, errs)
			}
		}
	}
}
