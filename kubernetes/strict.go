package kubernetes

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"

	"podspec.dev/podspec/validation/field"
)

// enumeration is implemented by the generated types whose values form a closed set.
type enumeration interface{ values() []string }

var enumerationType = reflect.TypeFor[enumeration]()

// structInfo is what the strict decoder needs of one generated struct type.
type structInfo struct {
	fields   map[string][]int // JSON name -> field index path (inline structs promoted)
	required []string         // JSON names of the required fields, in declaration order
	// minors are the Kubernetes versions that have each field of the type the OpenAPI
	// documents describe (fieldVersions), the fields the Go type has and those it does not.
	minors map[string]minors
}

// structInfos describes every struct type reachable from the kinds this package reads; it is
// computed on first use and never modified afterwards.
var structInfos = sync.OnceValue(func() map[reflect.Type]*structInfo {
	out := map[reflect.Type]*structInfo{}
	var visit func(t reflect.Type)
	visit = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || out[t] != nil || isSpecial(t) {
			return
		}
		info := &structInfo{fields: map[string][]int{}, minors: typeMinors(t.Name())}
		out[t] = info
		collect(t, nil, info)
		for _, idx := range info.fields {
			visit(t.FieldByIndex(idx).Type)
		}
	}
	for _, k := range kinds {
		visit(reflect.TypeOf(k.new()).Elem())
	}
	return out
})

func collect(t reflect.Type, prefix []int, info *structInfo) {
	for i := range t.NumField() {
		f := t.Field(i)
		idx := append(slices.Clone(prefix), i)
		if f.Anonymous {
			collect(f.Type, idx, info)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		info.fields[name] = idx
		if f.Tag.Get("kube") == "required" {
			info.required = append(info.required, name)
		}
	}
}

var specialTypes = []reflect.Type{
	reflect.TypeFor[Quantity](), reflect.TypeFor[IntOrString](), reflect.TypeFor[Time](),
	reflect.TypeFor[Duration](), reflect.TypeFor[Bytes](), reflect.TypeFor[RawJSON](),
}

func isSpecial(t reflect.Type) bool { return slices.Contains(specialTypes, t) }

// decoder fills a generated API value from a document's JSON-compatible tree, the way the API
// server of Kubernetes version v's strict decoding reads the same JSON, and records every
// departure from the API type: an unknown field (KUBE-002), a field another Kubernetes version
// has but v does not (KUBE-025), a value of the wrong type (KUBE-003), a value outside an
// enumeration (KUBE-004), a required field left out (KUBE-005). A value it cannot use is left
// at its zero value, so the semantic checks still run on the rest.
type decoder struct {
	infos map[reflect.Type]*structInfo
	v     Version
	errs  field.ErrorList
	// inStatus is set below an object's status, which the API server ignores on create: no
	// field is required there.
	inStatus bool
	// inAbsent is set below a field version v does not have: what is in it is reported once,
	// at the field.
	inAbsent bool
}

func newDecoder(v Version) *decoder { return &decoder{infos: structInfos(), v: v} }

func (d *decoder) wrongType(p *field.Path, detail string) {
	d.errs = append(d.errs, field.Invalid(ruleType, p, nil, detail))
}

func (d *decoder) decode(v any, rv reflect.Value, p *field.Path) {
	if v == nil {
		return // JSON null leaves the value unset, as in Kubernetes' decoding
	}
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			rv.Set(reflect.New(rv.Type().Elem()))
		}
		d.decode(v, rv.Elem(), p)
		return
	}
	t := rv.Type()
	if isSpecial(t) {
		out, problem, _ := checkSpecial(v, rv.Interface())
		if problem != "" {
			d.wrongType(p, problem)
			return
		}
		rv.Set(reflect.ValueOf(out))
		return
	}
	switch t.Kind() {
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			d.wrongType(p, "must be a string, not "+jsonType(v))
			return
		}
		if t.Implements(enumerationType) {
			valid := rv.Interface().(enumeration).values()
			if !slices.Contains(valid, s) {
				d.errs = append(d.errs, field.NotSupported(ruleEnum, p, s, valid))
				return
			}
		}
		rv.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			d.wrongType(p, "must be a boolean, not "+jsonType(v))
			return
		}
		rv.SetBool(b)
	case reflect.Int32, reflect.Int64, reflect.Int:
		n, ok := v.(int64)
		if !ok {
			d.wrongType(p, fmt.Sprintf("must be an integer (%s), not %s", intName(t), jsonType(v)))
			return
		}
		if rv.OverflowInt(n) {
			d.wrongType(p, fmt.Sprintf("%d is out of the range of a %s", n, intName(t)))
			return
		}
		rv.SetInt(n)
	case reflect.Float64:
		switch x := v.(type) {
		case float64:
			rv.SetFloat(x)
		case int64:
			rv.SetFloat(float64(x))
		default:
			d.wrongType(p, "must be a number, not "+jsonType(v))
		}
	case reflect.Slice:
		a, ok := v.([]any)
		if !ok {
			d.wrongType(p, "must be an array, not "+jsonType(v))
			return
		}
		s := reflect.MakeSlice(t, len(a), len(a))
		for i, e := range a {
			d.decode(e, s.Index(i), p.Index(i))
		}
		rv.Set(s)
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			d.wrongType(p, "must be an object, not "+jsonType(v))
			return
		}
		out := reflect.MakeMapWithSize(t, len(m))
		for _, k := range sortedKeys(m) {
			ev := reflect.New(t.Elem()).Elem()
			d.decode(m[k], ev, p.Key(k))
			out.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
		}
		rv.Set(out)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			d.wrongType(p, "must be an object, not "+jsonType(v))
			return
		}
		info := d.infos[t]
		if info == nil { // a type outside the kinds' trees (a List's metadata)
			info = &structInfo{fields: map[string][]int{}}
			collect(t, nil, info)
		}
		for _, k := range sortedKeys(m) {
			idx, known := info.fields[k]
			versions, listed := info.minors[k]
			absent := listed && !versions.has(d.v)
			switch {
			case absent:
				if !d.inAbsent {
					d.errs = append(d.errs, field.Invalid(ruleVersionField, p.Child(k), nil,
						fmt.Sprintf("Kubernetes %s has no field %q in %s: %s", d.v, k, t.Name(), versions)).AtKey())
				}
			case !known && listed:
				continue // a field v has and the newest version removed: its value is not checked
			case !known:
				d.errs = append(d.errs, field.Invalid(ruleUnknown, p.Child(k), nil,
					fmt.Sprintf("unknown field %q: %s has no such field in Kubernetes %s", k, t.Name(), d.v)).AtKey())
			}
			if !known {
				continue
			}
			fv := rv.FieldByIndex(idx)
			wasStatus, wasAbsent := d.inStatus, d.inAbsent
			if k == "status" && strings.HasSuffix(fv.Type().Name(), "Status") {
				d.inStatus = true
			}
			d.inAbsent = wasAbsent || absent
			d.decode(m[k], fv, p.Child(k))
			d.inStatus, d.inAbsent = wasStatus, wasAbsent
		}
		if d.inStatus {
			return
		}
		for _, k := range info.required {
			if _, set := m[k]; !set {
				d.errs = append(d.errs, field.Required(ruleRequired, p.Child(k), fmt.Sprintf("%s requires %s", t.Name(), k)))
			}
		}
	default:
		d.wrongType(p, fmt.Sprintf("cannot hold %s", jsonType(v)))
	}
}

func intName(t reflect.Type) string {
	if t.Kind() == reflect.Int32 {
		return "32-bit integer"
	}
	return "64-bit integer"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func marshalJSON(v any) ([]byte, error) {
	if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return nil, fmt.Errorf("cannot write %v as JSON", f)
	}
	return json.Marshal(v)
}
