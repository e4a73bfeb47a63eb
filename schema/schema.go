// Package schema holds the JSON Schemas (draft 2020-12) of the podspec.dev/v1alpha1 API, embedded
// in the binary, and the validation engine that checks decoded documents against them.
//
// The schema files are generated from the CUE definitions in package cue, the single source of
// truth (see README.md): `go generate ./schema/` rewrites them, and the generator's test fails
// when the committed files differ from what the CUE source generates.
//
// The engine (eval.go) evaluates the subset of JSON Schema the generated files use and refuses
// any other keyword. Each kind's schema is compiled once, on its first use, and is then safe for
// concurrent use; nothing is ever loaded from the network or the file system. Package
// schema/oracle holds the engine to a general JSON Schema implementation in tests.
//
// Violations are rendered as short messages with the same rule IDs and paths the CUE engine
// reports (see Violation and RuleFor).
package schema

//go:generate go run ./internal/gen -cue ../cue -out .

import (
	"embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"podspec.dev/podspec/validation/field"
)

//go:embed *.json
var files embed.FS

// kindFiles maps each kind to its schema file.
var kindFiles = map[string]string{
	"Pod":                   "pod.json",
	"Notification":          "notification.json",
	"PodStatus":             "pod-status.json",
	"NotificationStatus":    "notification-status.json",
	"PodNotificationRecord": "pod-notification-record.json",
	"Event":                 "event.json",
}

// Kinds lists the kinds that have a schema, in a stable order.
func Kinds() []string {
	return []string{"Pod", "Notification", "PodStatus", "NotificationStatus", "PodNotificationRecord", "Event"}
}

// JSON returns the JSON Schema of a kind, as embedded, or nil for an unknown kind. The caller
// may modify the returned slice.
func JSON(kind string) []byte {
	name, ok := kindFiles[kind]
	if !ok {
		return nil
	}
	b, err := files.ReadFile(name)
	if err != nil {
		return nil
	}
	return b
}

// kindSchemas compiles each kind's schema once, on its first use: a command that validates one
// Pod compiles only the Pod schema. openSchemas are the same with every object open (ValidateOpen).
var kindSchemas, openSchemas = schemasOf(false), schemasOf(true)

func schemasOf(open bool) map[string]func() (*node, error) {
	m := map[string]func() (*node, error){}
	for kind, name := range kindFiles {
		m[kind] = sync.OnceValues(func() (*node, error) { return compile(kind, name, open) })
	}
	return m
}

// compile compiles the embedded schema file name of kind.
func compile(kind, name string, open bool) (*node, error) {
	data, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read embedded schema %s: %w", name, err)
	}
	n, err := compileSchemaMode(data, open)
	if err != nil {
		return nil, fmt.Errorf("compile schema of %s (%s): %w", kind, name, err)
	}
	return n, nil
}

// Validate checks a decoded document (map[string]any, []any, string, bool, nil and numbers as
// float64, int64 or json.Number) against the schema of kind: "Pod", "Notification",
// "PodStatus", "NotificationStatus" or "PodNotificationRecord". It returns every violation,
// or nil when the document is valid.
func Validate(kind string, value any) field.ErrorList {
	return Errors(Violations(kind, value))
}

// ValidateOpen is Validate for what a runtime prints (docs/runtime-interface.md section 2: a
// runtime MAY add fields to any object, and the harness ignores them): a field the schema does
// not define is accepted at every level, while every field it defines is held to its schema
// (type, enumeration, pattern, bounds, required, exactly-one-of) as by Validate.
func ValidateOpen(kind string, value any) field.ErrorList {
	return Errors(violations(openSchemas, kind, value))
}

// Violations is Validate before rendering: the structural violations of a document, sorted by
// path, without duplicates.
func Violations(kindName string, value any) []Violation {
	return violations(kindSchemas, kindName, value)
}

func violations(schemas map[string]func() (*node, error), kindName string, value any) []Violation {
	load, ok := schemas[kindName]
	if !ok {
		return []Violation{{Kind: NotInEnum, Tokens: []string{"kind"}, Value: kindName, HasValue: true, Want: Kinds()}}
	}
	n, err := load()
	if err != nil {
		return []Violation{{Kind: Other, Want: []string{"internal error: " + err.Error()}}}
	}
	var e evaluation
	if n.valid(value, make([]string, 0, 16), &e) {
		return nil
	}
	return Normalize(e.out)
}

// Normalize sorts violations by path and kind and drops duplicates.
func Normalize(vs []Violation) []Violation {
	key := func(v Violation) string {
		return strings.Join(v.Tokens, "\x00") + "\x01" + strconv.Itoa(int(v.Kind)) + "\x01" + strings.Join(v.Names, ",") + "\x01" + v.Pattern + v.Op + v.Limit
	}
	sort.SliceStable(vs, func(i, j int) bool {
		a, b := vs[i].Tokens, vs[j].Tokens
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return lessToken(a[k], b[k])
			}
		}
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return key(vs[i]) < key(vs[j])
	})
	out := vs[:0]
	seen := map[string]bool{}
	for _, v := range vs {
		k := key(v)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, v)
	}
	return out
}

// lessToken orders list indexes numerically and other tokens lexically.
func lessToken(a, b string) bool {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return x < y
	}
	return a < b
}

// Lookup returns the value at JSON-pointer tokens within a decoded document.
func Lookup(v any, toks []string) (any, bool) {
	for _, t := range toks {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[t]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// Display renders an enum or const value for a message: strings bare (the empty string as
// ""), other values as JSON would write them.
func Display(v any) string {
	if s, ok := v.(string); ok {
		if s == "" {
			return `""`
		}
		return s
	}
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}
