// Package schema holds the JSON Schemas (draft 2020-12) of the podspec.dev/v1alpha1 API, embedded
// in the binary, and a validation engine that checks decoded documents against them.
//
// The schema files are generated from the CUE definitions in package cue, the single source of
// truth (see README.md): `go generate ./schema/` rewrites them, and the generator's test fails
// when the committed files differ from what the CUE source generates.
//
// Validation uses github.com/santhosh-tekuri/jsonschema/v6. Each kind's schema is compiled once,
// on its first use, and the compiled schemas are safe for concurrent use. No loader is installed that
// could reach the network or the file system: every schema is self-contained.
//
// Errors are the leaves of the validator's error tree, re-rendered as short messages with the
// same rule IDs and paths the CUE engine reports (see Violation and RuleFor).
package schema

//go:generate go run ./internal/gen -cue ../cue -out .

import (
	"bytes"
	"embed"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

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
}

// Kinds lists the kinds that have a schema, in a stable order.
func Kinds() []string {
	return []string{"Pod", "Notification", "PodStatus", "NotificationStatus", "PodNotificationRecord"}
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

// compiled is the compiled schema of one kind and its parsed document (to look up oneOf and not
// alternatives by schema location when rendering errors). It is never modified after compile.
type compiled struct {
	schema *jsonschema.Schema
	id     string // the schema's $id: schema locations in errors start with it
	doc    any
}

// kindSchemas compiles each kind's schema once, on its first use: a command that validates one
// Pod compiles only the Pod schema (a third of the work of compiling all five, on the start
// path of every `podspec run`). Each kind has a compiler of its own (the schemas are
// self-contained), so kinds compile concurrently without sharing a compiler.
var kindSchemas = func() map[string]func() (*compiled, error) {
	m := map[string]func() (*compiled, error){}
	for kind, name := range kindFiles {
		m[kind] = sync.OnceValues(func() (*compiled, error) { return compile(kind, name) })
	}
	return m
}()

// compile compiles the embedded schema file name of kind.
func compile(kind, name string) (*compiled, error) {
	data, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read embedded schema %s: %w", name, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("parse embedded schema %s: %w", name, err)
	}
	obj, _ := doc.(map[string]any)
	id, _ := obj["$id"].(string)
	if id == "" {
		return nil, fmt.Errorf("embedded schema %s has no $id", name)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		return nil, fmt.Errorf("add embedded schema %s: %w", name, err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		return nil, fmt.Errorf("compile schema of %s: %w", kind, err)
	}
	return &compiled{schema: sch, id: id, doc: doc}, nil
}

// noLoader refuses every URL: the embedded schemas are self-contained, and validation never
// reaches the network or the file system.
type noLoader struct{}

// Load implements jsonschema.URLLoader by refusing.
func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("schema %s is not embedded; podspec never loads schemas from elsewhere", u)
}

// Compile compiles the schema of kind now if it was not yet compiled (it otherwise is on its
// first use), so that a caller can overlap the compilation with other work. An unknown kind
// is ignored.
func Compile(kind string) {
	if load, ok := kindSchemas[kind]; ok {
		load()
	}
}

// Validate checks a decoded document (map[string]any, []any, string, bool, nil and numbers as
// float64, int64 or json.Number) against the schema of kind: "Pod", "Notification",
// "PodStatus", "NotificationStatus" or "PodNotificationRecord". It returns every violation,
// or nil when the document is valid.
func Validate(kind string, value any) field.ErrorList {
	return Errors(Violations(kind, value))
}

// Violations is Validate before rendering: the structural violations of a document, sorted by
// path, without duplicates.
func Violations(kindName string, value any) []Violation {
	load, ok := kindSchemas[kindName]
	if !ok {
		return []Violation{{Kind: NotInEnum, Tokens: []string{"kind"}, Value: kindName, HasValue: true, Want: Kinds()}}
	}
	c, err := load()
	if err != nil {
		return []Violation{{Kind: Other, Want: []string{"internal error: " + err.Error()}}}
	}
	err = c.schema.Validate(value)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Violation{{Kind: Other, Want: []string{err.Error()}}}
	}
	w := walker{c: c, root: value}
	w.visit(ve)
	return Normalize(w.out)
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

type walker struct {
	c    *compiled
	root any
	out  []Violation
}

func (w *walker) add(v Violation) { w.out = append(w.out, v) }

// at returns the value at tokens within the document.
func (w *walker) at(toks []string) (any, bool) {
	return Lookup(w.root, toks)
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

// schemaAt returns the schema object at an absolute schema location.
func (w *walker) schemaAt(loc string) map[string]any {
	base, frag, _ := strings.Cut(loc, "#")
	if base != w.c.id {
		return nil
	}
	doc := w.c.doc
	if frag != "" {
		if f, err := url.PathUnescape(frag); err == nil {
			frag = f
		}
		toks := strings.Split(strings.TrimPrefix(frag, "/"), "/")
		for i, t := range toks {
			toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		}
		var ok bool
		if doc, ok = Lookup(doc, toks); !ok {
			return nil
		}
	}
	m, _ := doc.(map[string]any)
	return m
}

// requiredNames returns the "required" names of each schema in a list (oneOf alternatives).
func requiredNames(list any) []string {
	items, _ := list.([]any)
	var names []string
	for _, it := range items {
		m, _ := it.(map[string]any)
		req, _ := m["required"].([]any)
		for _, r := range req {
			if s, ok := r.(string); ok {
				names = append(names, s)
			}
		}
	}
	return names
}

// visit walks the error tree to its leaves and records one violation per leaf, collapsing
// oneOf and anyOf noise into one violation where it can.
func (w *walker) visit(e *jsonschema.ValidationError) {
	loc := e.InstanceLocation
	val, has := w.at(loc)
	base := Violation{Tokens: loc, Value: val, HasValue: has}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			w.add(Violation{Kind: Missing, Tokens: loc, Names: []string{m}})
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			w.add(Violation{Kind: UnknownField, Tokens: append(loc[:len(loc):len(loc)], p)})
		}
	case *kind.Type:
		base.Kind, base.Want = WrongType, k.Want
		w.add(base)
	case *kind.Enum:
		base.Kind = NotInEnum
		for _, x := range k.Want {
			base.Want = append(base.Want, display(x))
		}
		w.add(base)
	case *kind.Const:
		base.Kind, base.Want = NotConst, []string{display(k.Want)}
		w.add(base)
	case *kind.Pattern:
		base.Kind, base.Pattern = NoPatternMatch, k.Want
		w.add(base)
	case *kind.Minimum:
		base.Kind, base.Op, base.Limit = OutOfRange, ">=", k.Want.RatString()
		w.add(base)
	case *kind.ExclusiveMinimum:
		base.Kind, base.Op, base.Limit = OutOfRange, ">", k.Want.RatString()
		w.add(base)
	case *kind.Maximum:
		base.Kind, base.Op, base.Limit = OutOfRange, "<=", k.Want.RatString()
		w.add(base)
	case *kind.ExclusiveMaximum:
		base.Kind, base.Op, base.Limit = OutOfRange, "<", k.Want.RatString()
		w.add(base)
	case *kind.MinItems:
		base.Kind, base.Limit = TooFewItems, strconv.Itoa(k.Want)
		w.add(base)
	case *kind.MaxItems:
		base.Kind, base.Limit = TooManyItems, strconv.Itoa(k.Want)
		w.add(base)
	case *kind.Format:
		base.Kind, base.Want = BadFormat, []string{k.Want}
		w.add(base)
	case *kind.OneOf:
		w.oneOf(e, base)
	case *kind.AnyOf:
		w.anyOf(e, base)
	case *kind.Not:
		if _, isObj := val.(map[string]any); !isObj {
			return
		}
		s := w.schemaAt(e.SchemaURL)
		not, _ := s["not"].(map[string]any)
		names := requiredNames([]any{not})
		if len(names) == 0 {
			base.Kind, base.Want = Other, []string{"must not match the schema under \"not\""}
			w.add(base)
			return
		}
		w.add(Violation{Kind: Exclusive, Tokens: loc, Names: names})
	default:
		if len(e.Causes) == 0 {
			base.Kind, base.Want = Other, []string{e.ErrorKind.LocalizedString(nil)}
			w.add(base)
		}
	}
	for _, c := range e.Causes {
		switch e.ErrorKind.(type) {
		case *kind.OneOf, *kind.AnyOf, *kind.Not:
			return // handled above
		}
		w.visit(c)
	}
}

// oneOf reports an object that sets none or several of its "exactly one of" fields.
func (w *walker) oneOf(e *jsonschema.ValidationError, base Violation) {
	obj, isObj := base.Value.(map[string]any)
	if !isObj {
		return // the type error is reported by the object's own "type"
	}
	names := requiredNames(w.schemaAt(e.SchemaURL)["oneOf"])
	if len(names) == 0 {
		for _, c := range e.Causes {
			w.visit(c)
		}
		return
	}
	var set []string
	for _, n := range names {
		if _, ok := obj[n]; ok {
			set = append(set, n)
		}
	}
	w.add(Violation{Kind: NotExactlyOne, Tokens: base.Tokens, Names: names, Set: set})
}

// anyOf reports the branch that fits the value's type; when no branch does, one type error.
func (w *walker) anyOf(e *jsonschema.ValidationError, base Violation) {
	var wants []string
	var fitting []*jsonschema.ValidationError
	for _, c := range e.Causes {
		var leaves []*jsonschema.ValidationError
		collectLeaves(c, &leaves)
		typeOnly := len(leaves) > 0
		for _, l := range leaves {
			t, ok := l.ErrorKind.(*kind.Type)
			if !ok || !samePath(l.InstanceLocation, base.Tokens) {
				typeOnly = false
				break
			}
			wants = append(wants, t.Want...)
		}
		if !typeOnly {
			fitting = append(fitting, c)
		}
	}
	if len(fitting) == 0 {
		base.Kind, base.Want = WrongType, dedupe(wants)
		w.add(base)
		return
	}
	for _, c := range fitting {
		w.visit(c)
	}
}

func collectLeaves(e *jsonschema.ValidationError, out *[]*jsonschema.ValidationError) {
	if len(e.Causes) == 0 {
		*out = append(*out, e)
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}

func samePath(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// display renders an enum or const value for a message: strings bare (the empty string as
// ""), other values as JSON would write them.
func display(v any) string {
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
