package v1alpha1_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/corpustest"
	"podspec.dev/podspec/schema"
)

// The manifest's shape is written twice: in cue/*.cue, from which schema/*.json is generated
// (package schema's generator test fails when the two differ), and in this package's Go types,
// which the validator decodes into and the runtime reads. TestTheGoTypesAreTheSchemas holds
// the second to the first, field by field: every JSON field of a Go type is a property of the
// schema at the same place and back, required exactly when its tag has no omitempty, of the
// same JSON type (a 32-bit Go integer never accepts more than 32 bits), and every enumeration
// the schemas spell is the set of constants of its Go type. It reflects over the types and
// walks the schemas, so a field, a type or a constant added on one side only fails here.

// kindTypes are the Go types of the schemas' kinds (all but Event, the runtime interface's,
// which api/runtime/v1's contract test holds).
var kindTypes = map[string]reflect.Type{
	"Pod":                   reflect.TypeFor[v1alpha1.Pod](),
	"Notification":          reflect.TypeFor[v1alpha1.Notification](),
	"PodStatus":             reflect.TypeFor[v1alpha1.PodStatus](),
	"NotificationStatus":    reflect.TypeFor[v1alpha1.NotificationStatus](),
	"PodNotificationRecord": reflect.TypeFor[v1alpha1.PodNotificationRecord](),
}

// leafTypes are the Go types that marshal themselves, with the JSON types their schema allows
// (and the format of a string).
var leafTypes = map[reflect.Type][]string{
	reflect.TypeFor[time.Time]():         {"string:date-time"},
	reflect.TypeFor[v1alpha1.Quantity](): {"number", "string"},
	reflect.TypeFor[v1alpha1.PortRef]():  {"integer", "string"},
}

var (
	marshaler   = reflect.TypeFor[json.Marshaler]()
	unmarshaler = reflect.TypeFor[json.Unmarshaler]()
)

func TestTheGoTypesAreTheSchemas(t *testing.T) {
	var kinds []string
	for _, k := range schema.Kinds() {
		if k != "Event" {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	if got, want := kinds, slices.Sorted(maps.Keys(kindTypes)); !slices.Equal(got, want) {
		t.Fatalf("the schemas' kinds are %v, this test's Go types %v: add the new kind's Go type to kindTypes", got, want)
	}
	consts := typedConstants(t)
	enums := map[reflect.Type]map[string]bool{} // every enumeration the schemas spell, per Go type
	for _, k := range kinds {
		var doc map[string]any
		if err := json.Unmarshal(schema.JSON(k), &doc); err != nil {
			t.Fatalf("schema %s: %v", k, err)
		}
		w := &shapeWalk{t: t, kind: k, defs: asMap(doc["$defs"]), enums: enums}
		w.compare(kindTypes[k], doc, k)
	}
	// Each Go type with constants is an enumeration: the schemas must spell exactly its
	// constants, over all the fields of that type (one field may allow only some of them).
	for typ, values := range enums {
		want := consts[typ.Name()]
		if typ.PkgPath() != reflect.TypeFor[v1alpha1.Pod]().PkgPath() || typ.Name() == "" || len(want) == 0 {
			continue // a plain string with an enum in the schema (emptyDir.medium): no Go constants to agree with
		}
		got := slices.Sorted(maps.Keys(values))
		if !slices.Equal(got, want) {
			t.Errorf("enumeration %s: the schemas allow %v, the Go constants are %v; add the value to both cue/*.cue and api/v1alpha1 (then go generate ./schema/)", typ.Name(), got, want)
		}
	}
	for name, values := range consts {
		used := false
		for typ := range enums {
			used = used || typ.Name() == name
		}
		if !used && isEnumType(name) {
			t.Errorf("enumeration %s (%v) is the type of no field the schemas enumerate", name, values)
		}
	}
}

// isEnumType reports whether a type of this package with constants is used as a field type
// (some, such as ReasonCompleted's, are untyped and never reach here).
func isEnumType(name string) bool {
	found := false
	seen := map[reflect.Type]bool{}
	var visit func(reflect.Type)
	visit = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			if t.Kind() == reflect.Map {
				visit(t.Key())
			}
			t = t.Elem()
		}
		if t.Name() == name && t.PkgPath() == reflect.TypeFor[v1alpha1.Pod]().PkgPath() {
			found = true
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			visit(t.Field(i).Type)
		}
	}
	for _, typ := range kindTypes {
		visit(typ)
	}
	return found
}

// shapeWalk compares one kind's Go type with its schema.
type shapeWalk struct {
	t     *testing.T
	kind  string
	defs  map[string]any
	enums map[reflect.Type]map[string]bool
}

func (w *shapeWalk) errorf(at, format string, args ...any) {
	w.t.Helper()
	w.t.Errorf("schema %s at %s: "+format, append([]any{w.kind, at}, args...)...)
}

// resolve follows $ref and keeps, of an allOf, the member that has a type (the others are
// negations, "at most one of", which has no Go form); nullable reports an anyOf that allows null.
func (w *shapeWalk) resolve(s map[string]any) (out map[string]any, nullable bool) {
	for {
		if ref, ok := s["$ref"].(string); ok {
			s = asMap(w.defs[strings.TrimPrefix(ref, "#/$defs/")])
			continue
		}
		if all, ok := s["allOf"].([]any); ok {
			var keep []map[string]any
			for _, m := range all {
				if _, ok := asMap(m)["type"]; ok {
					keep = append(keep, asMap(m))
				}
			}
			if len(keep) == 1 {
				s = keep[0]
				continue
			}
		}
		if alts, ok := s["anyOf"].([]any); ok {
			var rest []any
			for _, m := range alts {
				if asMap(m)["type"] == "null" {
					nullable = true
				} else {
					rest = append(rest, m)
				}
			}
			if len(rest) == 1 {
				s = asMap(rest[0])
				continue
			}
		}
		return s, nullable
	}
}

// jsonTypes lists the JSON types a resolved schema allows ("string:date-time" for a string of
// that format).
func (w *shapeWalk) jsonTypes(s map[string]any) []string {
	var out []string
	add := func(m map[string]any) {
		m, _ = w.resolve(m)
		switch ty := m["type"].(type) {
		case string:
			if f, ok := m["format"].(string); ok && ty == "string" {
				ty += ":" + f
			}
			out = append(out, ty)
		case nil:
			if c, ok := m["const"]; ok {
				out = append(out, schema.JSONType(c))
			} else if e, ok := m["enum"].([]any); ok && len(e) > 0 {
				out = append(out, schema.JSONType(e[0]))
			}
		}
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for _, m := range alts {
			add(asMap(m))
		}
	} else {
		add(s)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func (w *shapeWalk) compare(typ reflect.Type, s map[string]any, at string) {
	w.t.Helper()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	s, nullable := w.resolve(s)
	if want, ok := leafTypes[typ]; ok {
		if got := w.jsonTypes(s); !slices.Equal(got, want) {
			w.errorf(at, "Go type %s is JSON %v, the schema allows %v", typ, want, got)
		}
		return
	}
	if typ.Implements(marshaler) || reflect.PointerTo(typ).Implements(unmarshaler) {
		w.errorf(at, "Go type %s marshals itself: add it to leafTypes with the JSON types it reads", typ)
		return
	}
	if nullable && typ.Kind() != reflect.Slice && typ.Kind() != reflect.Map {
		w.errorf(at, "the schema allows null, which Go type %s cannot hold", typ)
	}
	got := w.jsonTypes(s)
	want := goJSONType(typ)
	if !slices.Equal(got, []string{want}) {
		w.errorf(at, "Go type %s is JSON %s, the schema allows %v", typ, want, got)
		return
	}
	switch typ.Kind() {
	case reflect.Struct:
		w.compareObject(typ, s, at)
	case reflect.Slice:
		w.compare(typ.Elem(), asMap(s["items"]), at+"[]")
	case reflect.Map:
		w.compareMap(typ, s, at)
	case reflect.String:
		w.recordEnum(typ, s)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w.compareBounds(typ, s, at)
	}
}

// goJSONType is the JSON type encoding/json writes for a Go type.
func goJSONType(typ reflect.Type) string {
	switch typ.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	}
	return typ.Kind().String()
}

// goField is one JSON field of a Go struct (embedded structs' fields promoted, as
// encoding/json does).
type goField struct {
	name      string
	typ       reflect.Type
	omitempty bool
}

func goFields(typ reflect.Type) []goField {
	var out []goField
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			out = append(out, goFields(f.Type)...)
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, goField{name: name, typ: f.Type, omitempty: slices.Contains(strings.Split(opts, ","), "omitempty")})
	}
	return out
}

func (w *shapeWalk) compareObject(typ reflect.Type, s map[string]any, at string) {
	w.t.Helper()
	props := asMap(s["properties"])
	required := map[string]bool{}
	for _, r := range asSlice(s["required"]) {
		required[r.(string)] = true
	}
	seen := map[string]bool{}
	for _, f := range goFields(typ) {
		seen[f.name] = true
		p, ok := props[f.name]
		if !ok {
			w.errorf(at, "Go field %s.%s (json %q) has no property in the schema: add it to the CUE definition in cue/*.cue and run go generate ./schema/", typ.Name(), f.name, f.name)
			continue
		}
		switch {
		case required[f.name] && f.omitempty && f.typ.Kind() != reflect.Pointer:
			// (A nil pointer is invalid with or without omitempty: written as null or left out.)
			w.errorf(at+"."+f.name, "required in the schema, but Go field %s.%s is omitempty", typ.Name(), f.name)
		case !required[f.name] && !f.omitempty:
			w.errorf(at+"."+f.name, "optional in the schema (%s?:), but Go field %s.%s always writes it (no omitempty)", f.name, typ.Name(), f.name)
		}
		w.compare(f.typ, asMap(p), at+"."+f.name)
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if !seen[name] {
			w.errorf(at, "property %q has no field in Go type %s: add it to api/v1alpha1", name, typ.Name())
		}
	}
}

// compareMap holds a Go map to an object schema: string keys are patternProperties (or
// additionalProperties); keys of an enumerated Go type are properties named by its constants.
func (w *shapeWalk) compareMap(typ reflect.Type, s map[string]any, at string) {
	w.t.Helper()
	if props := asMap(s["properties"]); len(props) > 0 {
		keys := map[string]bool{}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			keys[name] = true
			w.compare(typ.Elem(), asMap(props[name]), at+"."+name)
		}
		if typ.Key().Name() == "string" {
			w.errorf(at, "the schema names the keys %v; give Go's map a key type with those constants", slices.Sorted(maps.Keys(keys)))
			return
		}
		w.addEnum(typ.Key(), keys)
		return
	}
	values := s["additionalProperties"]
	for _, pp := range asMap(s["patternProperties"]) {
		values = pp
	}
	v, ok := values.(map[string]any)
	if !ok {
		w.errorf(at, "Go map %s: the schema has no schema for its values", typ)
		return
	}
	w.compare(typ.Elem(), v, at+"[*]")
}

func (w *shapeWalk) recordEnum(typ reflect.Type, s map[string]any) {
	values := map[string]bool{}
	for _, v := range asSlice(s["enum"]) {
		if str, ok := v.(string); ok {
			values[str] = true
		}
	}
	if c, ok := s["const"].(string); ok {
		values[c] = true
	}
	if len(values) > 0 || typ.Name() != "string" {
		w.addEnum(typ, values)
	}
}

func (w *shapeWalk) addEnum(typ reflect.Type, values map[string]bool) {
	if w.enums[typ] == nil {
		w.enums[typ] = map[string]bool{}
	}
	for v := range values {
		w.enums[typ][v] = true
	}
}

// compareBounds checks that every integer the schema accepts fits the Go type.
func (w *shapeWalk) compareBounds(typ reflect.Type, s map[string]any, at string) {
	w.t.Helper()
	bits := typ.Bits()
	lo, hi := -math.Pow(2, float64(bits-1)), math.Pow(2, float64(bits-1))-1
	if strings.HasPrefix(typ.Kind().String(), "uint") {
		lo, hi = 0, math.Pow(2, float64(bits))-1
	}
	if bits == 64 {
		return // the schema leaves 64-bit fields unbounded above (cue/common.cue); the typed decode reports overflow
	}
	min, minOK := s["minimum"].(float64)
	max, maxOK := s["maximum"].(float64)
	if !minOK || min < lo || !maxOK || max > hi {
		w.errorf(at, "Go type %s holds [%g, %g], the schema's bounds are minimum %v, maximum %v", typ, lo, hi, s["minimum"], s["maximum"])
	}
}

// typedConstants reads this package's source: the string constants declared with a type of
// the package, by type name, sorted.
func typedConstants(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				ident, ok := vs.Type.(*ast.Ident)
				if !ok {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, err := strconv.Unquote(lit.Value)
						if err != nil {
							t.Fatal(err)
						}
						out[ident.Name] = append(out[ident.Name], s)
					}
				}
			}
		}
	}
	for k := range out {
		sort.Strings(out[k])
	}
	return out
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asSlice(v any) []any        { s, _ := v.([]any); return s }

// TestDefaultsAreValuesTheSchemasAllow defaults every valid Pod and Notification of the corpus
// and the examples (SetDefaults, as the runtime does before it stores a pod) and validates the
// result against the schema again: a default outside an enumeration or a bound fails here.
func TestDefaultsAreValuesTheSchemasAllow(t *testing.T) {
	n := 0
	for _, d := range corpustest.ValidDocuments(t, "../..") {
		var obj any
		switch d.Kind {
		case v1alpha1.KindPod:
			p, err := d.Pod()
			if err != nil {
				continue
			}
			p.SetDefaults()
			obj = p
		case v1alpha1.KindNotification:
			nt, err := d.Notification()
			if err != nil {
				continue
			}
			nt.SetDefaults()
			obj = nt
		default:
			continue
		}
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		n++
		for _, e := range schema.Validate(d.Kind, v) {
			t.Errorf("%s: the defaulted %s is not valid: %v", d.File, d.Kind, e)
		}
	}
	if n < 10 {
		t.Errorf("defaulted only %d objects", n)
	}
}
