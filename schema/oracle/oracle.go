// Package oracle validates documents with a general JSON Schema implementation,
// github.com/santhosh-tekuri/jsonschema/v6, and renders its verdict as schema.Violations.
//
// It is the yardstick of package schema's own engine, which evaluates only the subset of JSON
// Schema the generated schemas use (and is what every podspec command runs): tests require the
// two to report identical violations on the corpus, on mutated documents and under fuzzing.
// Nothing but tests imports this package, so the library is linked into no podspec binary.
package oracle

import (
	"bytes"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"podspec.dev/podspec/schema"
)

// compiled is the compiled schema of one kind and its parsed document (to look up oneOf and not
// alternatives by schema location when rendering errors). It is never modified after compile.
type compiled struct {
	schema *jsonschema.Schema
	id     string // the schema's $id: schema locations in errors start with it
	doc    any
}

var kinds = func() map[string]func() (*compiled, error) {
	m := map[string]func() (*compiled, error){}
	for _, k := range schema.Kinds() {
		m[k] = sync.OnceValues(func() (*compiled, error) { return compile(k) })
	}
	return m
}()

// compile compiles the embedded schema of kind with the library. Format date-time is checked
// by schema.IsDateTime (the library accepts signs in the time's numbers, "+1:+2:+3"); its own
// table test holds that function to RFC 3339.
func compile(kindName string) (*compiled, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema.JSON(kindName)))
	if err != nil {
		return nil, fmt.Errorf("parse schema of %s: %w", kindName, err)
	}
	obj, _ := doc.(map[string]any)
	id, _ := obj["$id"].(string)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "date-time", Validate: func(v any) error {
		if s, ok := v.(string); ok && !schema.IsDateTime(s) {
			return fmt.Errorf("not an RFC 3339 date-time")
		}
		return nil
	}})
	if err := c.AddResource(id, doc); err != nil {
		return nil, fmt.Errorf("add schema of %s: %w", kindName, err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		return nil, fmt.Errorf("compile schema of %s: %w", kindName, err)
	}
	return &compiled{schema: sch, id: id, doc: doc}, nil
}

// noLoader refuses every URL: the embedded schemas are self-contained.
type noLoader struct{}

// Load implements jsonschema.URLLoader by refusing.
func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("schema %s is not embedded", u)
}

// Violations validates a decoded document against the schema of kind with the library and
// returns what it finds as violations, normalised as schema.Violations returns them.
func Violations(kindName string, value any) ([]schema.Violation, error) {
	load, ok := kinds[kindName]
	if !ok {
		// There is no schema for the library to check: report it as package schema does.
		return schema.Violations(kindName, value), nil
	}
	c, err := load()
	if err != nil {
		return nil, err
	}
	err = c.schema.Validate(value)
	if err == nil {
		return nil, nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil, err
	}
	w := walker{c: c, root: value}
	w.visit(ve)
	return schema.Normalize(w.out), nil
}

type walker struct {
	c    *compiled
	root any
	out  []schema.Violation
}

func (w *walker) add(v schema.Violation) { w.out = append(w.out, v) }

// at returns the value at tokens within the document.
func (w *walker) at(toks []string) (any, bool) {
	return schema.Lookup(w.root, toks)
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
		if doc, ok = schema.Lookup(doc, toks); !ok {
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
	base := schema.Violation{Tokens: loc, Value: val, HasValue: has}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			w.add(schema.Violation{Kind: schema.Missing, Tokens: loc, Names: []string{m}})
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			w.add(schema.Violation{Kind: schema.UnknownField, Tokens: append(loc[:len(loc):len(loc)], p)})
		}
	case *kind.Type:
		base.Kind, base.Want = schema.WrongType, k.Want
		w.add(base)
	case *kind.Enum:
		base.Kind = schema.NotInEnum
		for _, x := range k.Want {
			base.Want = append(base.Want, schema.Display(x))
		}
		w.add(base)
	case *kind.Const:
		base.Kind, base.Want = schema.NotConst, []string{schema.Display(k.Want)}
		w.add(base)
	case *kind.Pattern:
		base.Kind, base.Pattern = schema.NoPatternMatch, k.Want
		w.add(base)
	case *kind.Minimum:
		base.Kind, base.Op, base.Limit = schema.OutOfRange, ">=", k.Want.RatString()
		w.add(base)
	case *kind.ExclusiveMinimum:
		base.Kind, base.Op, base.Limit = schema.OutOfRange, ">", k.Want.RatString()
		w.add(base)
	case *kind.Maximum:
		base.Kind, base.Op, base.Limit = schema.OutOfRange, "<=", k.Want.RatString()
		w.add(base)
	case *kind.ExclusiveMaximum:
		base.Kind, base.Op, base.Limit = schema.OutOfRange, "<", k.Want.RatString()
		w.add(base)
	case *kind.MinItems:
		base.Kind, base.Limit = schema.TooFewItems, strconv.Itoa(k.Want)
		w.add(base)
	case *kind.MaxItems:
		base.Kind, base.Limit = schema.TooManyItems, strconv.Itoa(k.Want)
		w.add(base)
	case *kind.InvalidJsonValue:
		base.Kind, base.Want = schema.Other, []string{schema.NotJSONValue}
		w.add(base)
	case *kind.Format:
		base.Kind, base.Want = schema.BadFormat, []string{k.Want}
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
			base.Kind, base.Want = schema.Other, []string{"must not match the schema under \"not\""}
			w.add(base)
			return
		}
		w.add(schema.Violation{Kind: schema.Exclusive, Tokens: loc, Names: names})
	default:
		if len(e.Causes) == 0 {
			base.Kind, base.Want = schema.Other, []string{e.ErrorKind.LocalizedString(nil)}
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
func (w *walker) oneOf(e *jsonschema.ValidationError, base schema.Violation) {
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
	w.add(schema.Violation{Kind: schema.NotExactlyOne, Tokens: base.Tokens, Names: names, Set: set})
}

// anyOf reports the branch that fits the value's type; when no branch does, one type error.
func (w *walker) anyOf(e *jsonschema.ValidationError, base schema.Violation) {
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
		base.Kind, base.Want = schema.WrongType, dedupe(wants)
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
