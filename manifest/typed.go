package manifest

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"podspec.dev/podspec/api/v1alpha1"
)

// typedDecoder fills a Go value from a document's JSON-compatible tree directly, with the
// meaning encoding/json gives the same JSON text (json tags, omitted fields left alone, embedded
// structs promoted, json.Unmarshaler honoured) but without serialising the tree first. Keys
// match field names exactly; unknown keys are ignored (the schema engine reports them).
//
// What to do with a Go type is worked out once per type (planOf), not per value: a decode of a
// pod makes no type lookups, only the calls its types' plans chain together.
type typedDecoder struct {
	// partial makes a value that does not fit its field leave the field unset and decoding go
	// on; decode then returns every such value (typeErrors) instead of the first.
	partial bool
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	quantityType    = reflect.TypeFor[v1alpha1.Quantity]()
	stringMapType   = reflect.TypeFor[map[string]string]()
)

// decode fills rv (addressable, or settable) from the JSON value v.
func (td *typedDecoder) decode(v any, rv reflect.Value) error {
	return planOf(rv.Type()).decode(td, v, rv)
}

// plan decodes JSON values into one Go type.
type plan struct {
	decode func(td *typedDecoder, v any, rv reflect.Value) error
}

// plans caches every type's plan (reflect.Type to *plan); a plan never changes once stored.
var plans sync.Map

// planOf returns t's plan, building it (and those of the types inside t) on first use.
func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	building := map[reflect.Type]*plan{}
	p := buildPlan(t, building)
	for bt, bp := range building {
		plans.LoadOrStore(bt, bp) // a plan built at the same time elsewhere is equivalent
	}
	return p
}

// buildPlan makes t's plan; building holds the plans under construction, so that a recursive
// type refers to its own plan.
func buildPlan(t reflect.Type, building map[reflect.Type]*plan) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &plan{}
	building[t] = p
	if t.Kind() == reflect.Pointer {
		p.decode = pointerPlan(t, buildPlan(t.Elem(), building))
		return p
	}
	byKind := kindPlan(t, building)
	if !reflect.PointerTo(t).Implements(unmarshalerType) {
		p.decode = byKind
		return p
	}
	p.decode = func(td *typedDecoder, v any, rv reflect.Value) error {
		if !rv.CanAddr() {
			return byKind(td, v, rv)
		}
		if s, ok := v.(string); ok && t == quantityType && utf8.ValidString(s) {
			// What Quantity.UnmarshalJSON makes of the JSON string s, without writing it.
			rv.SetString(s)
			return nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return &typeError{value: v, err: err}
		}
		if err := rv.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(b); err != nil {
			return &typeError{value: v, err: err}
		}
		return nil
	}
	return p
}

// pointerPlan decodes into a pointer: null sets it to nil, anything else decodes into the value
// it points at (a new one when it is nil).
func pointerPlan(t reflect.Type, elem *plan) func(*typedDecoder, any, reflect.Value) error {
	return func(td *typedDecoder, v any, rv reflect.Value) error {
		if v == nil {
			rv.SetZero()
			return nil
		}
		fresh := rv.IsNil()
		if fresh {
			rv.Set(reflect.New(t.Elem()))
		}
		err := elem.decode(td, v, rv.Elem())
		if te, leaf := err.(*typeError); leaf && len(te.path) == 0 && fresh {
			rv.SetZero() // the value itself does not fit: leave the field unset, not zero
		}
		return err
	}
}

// kindPlan decodes into a type that is not a pointer by its kind. Each leaves the value alone
// for JSON null, as encoding/json does.
func kindPlan(t reflect.Type, building map[reflect.Type]*plan) func(*typedDecoder, any, reflect.Value) error {
	switch t.Kind() {
	case reflect.String:
		return func(_ *typedDecoder, v any, rv reflect.Value) error {
			if v == nil {
				return nil
			}
			s, ok := v.(string)
			if !ok {
				return mismatch(v, "string")
			}
			rv.SetString(s)
			return nil
		}
	case reflect.Bool:
		return func(_ *typedDecoder, v any, rv reflect.Value) error {
			if v == nil {
				return nil
			}
			b, ok := v.(bool)
			if !ok {
				return mismatch(v, "boolean")
			}
			rv.SetBool(b)
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(_ *typedDecoder, v any, rv reflect.Value) error {
			if v == nil {
				return nil
			}
			n, ok := integer(v)
			if !ok || rv.OverflowInt(n) {
				return intMismatch(v, t)
			}
			rv.SetInt(n)
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(_ *typedDecoder, v any, rv reflect.Value) error {
			if v == nil {
				return nil
			}
			n, ok := integer(v)
			if !ok || n < 0 || rv.OverflowUint(uint64(n)) {
				return intMismatch(v, t)
			}
			rv.SetUint(uint64(n))
			return nil
		}
	case reflect.Float32, reflect.Float64:
		return func(_ *typedDecoder, v any, rv reflect.Value) error {
			var f float64
			switch x := v.(type) {
			case nil:
				return nil
			case float64:
				f = x
			case int64:
				f = float64(x)
			default:
				return mismatch(v, "number")
			}
			if math.IsInf(f, 0) || math.IsNaN(f) || rv.OverflowFloat(f) {
				return &typeError{value: v, err: fmt.Errorf("%v is not a finite %s", v, t.Kind())}
			}
			rv.SetFloat(f)
			return nil
		}
	case reflect.Slice:
		return slicePlan(t, buildPlan(t.Elem(), building))
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return func(_ *typedDecoder, v any, _ reflect.Value) error {
				if v == nil {
					return nil
				}
				if _, ok := v.(map[string]any); !ok {
					return mismatch(v, "object")
				}
				return &typeError{err: fmt.Errorf("unsupported map key type %s", t.Key())}
			}
		}
		if t == stringMapType {
			return stringMapPlan
		}
		return mapPlan(t, buildPlan(t.Elem(), building))
	case reflect.Struct:
		return structPlan(t, building)
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return func(_ *typedDecoder, v any, rv reflect.Value) error {
				if v != nil {
					rv.Set(reflect.ValueOf(v))
				}
				return nil
			}
		}
	}
	return func(_ *typedDecoder, v any, _ reflect.Value) error {
		if v == nil {
			return nil
		}
		return &typeError{err: fmt.Errorf("cannot decode into %s", t)}
	}
}

func slicePlan(t reflect.Type, elem *plan) func(*typedDecoder, any, reflect.Value) error {
	return func(td *typedDecoder, v any, rv reflect.Value) error {
		if v == nil {
			return nil
		}
		a, ok := v.([]any)
		if !ok {
			return mismatch(v, "array")
		}
		s := reflect.MakeSlice(t, len(a), len(a))
		var errs typeErrors
		for i, e := range a {
			if err := elem.decode(td, e, s.Index(i)); err != nil {
				if errs = errs.within(err, "["+strconv.Itoa(i)+"]"); !td.partial {
					return errs[0]
				}
			}
		}
		rv.Set(s)
		return errs.orNil()
	}
}

func mapPlan(t reflect.Type, elem *plan) func(*typedDecoder, any, reflect.Value) error {
	return func(td *typedDecoder, v any, rv reflect.Value) error {
		if v == nil {
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return mismatch(v, "object")
		}
		if rv.IsNil() {
			rv.Set(reflect.MakeMapWithSize(t, len(m)))
		}
		var errs typeErrors
		for k, e := range m {
			ev := reflect.New(t.Elem()).Elem()
			if err := elem.decode(td, e, ev); err != nil {
				if errs = errs.within(err, "."+k); !td.partial {
					return errs[0]
				}
				continue
			}
			rv.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
		}
		return errs.orNil()
	}
}

// stringMapPlan is mapPlan for map[string]string (labels, annotations) without reflection.
func stringMapPlan(td *typedDecoder, v any, rv reflect.Value) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return mismatch(v, "object")
	}
	out := rv.Interface().(map[string]string)
	if out == nil {
		out = make(map[string]string, len(m))
		rv.Set(reflect.ValueOf(out))
	}
	var errs typeErrors
	for k, e := range m {
		s, ok := e.(string)
		if !ok && e != nil {
			if errs = errs.within(mismatch(e, "string"), "."+k); !td.partial {
				return errs[0]
			}
			continue
		}
		out[k] = s // null is the empty string, as a new element left alone
	}
	return errs.orNil()
}

// field is a struct field as a JSON key names it: where it is and its type's plan.
type field struct {
	index []int // the index path, longer than one for a field promoted from an embedded struct
	plan  *plan
}

func structPlan(t reflect.Type, building map[reflect.Type]*plan) func(*typedDecoder, any, reflect.Value) error {
	fields := map[string]field{}
	for name, idx := range fieldsOf(t) {
		fields[name] = field{index: idx, plan: buildPlan(t.FieldByIndex(idx).Type, building)}
	}
	return func(td *typedDecoder, v any, rv reflect.Value) error {
		if v == nil {
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return mismatch(v, "object")
		}
		var errs typeErrors
		for k, e := range m {
			f, known := fields[k]
			if !known {
				continue
			}
			fv := rv.Field(f.index[0])
			if len(f.index) > 1 {
				fv = fieldByIndex(rv, f.index)
			}
			if err := f.plan.decode(td, e, fv); err != nil {
				if errs = errs.within(err, "."+k); !td.partial {
					return errs[0]
				}
			}
		}
		return errs.orNil()
	}
}

// typeError is a value of the wrong type, or a number outside its field's range, at a path;
// the path is assembled while the error returns up the tree, so decoding a valid document
// builds no path strings.
type typeError struct {
	path       []string // innermost segment first: ".key" or "[index]"
	value      any      // the value that does not fit
	want       string   // the JSON type the field takes ("" for a json.Unmarshaler's error)
	outOfRange bool     // a number of the right kind beyond the field's range
	op, limit  string   // the bound it crosses, when outOfRange: "<=", "9223372036854775807"
	err        error
}

// typeErrors are the values of one document that do not fit their fields (partial decoding).
type typeErrors []*typeError

func (es typeErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// within appends the errors of err (a *typeError or typeErrors) found inside segment.
func (es typeErrors) within(err error, segment string) typeErrors {
	switch e := err.(type) {
	case *typeError:
		return append(es, e.in(segment))
	case typeErrors:
		for _, x := range e {
			es = append(es, x.in(segment))
		}
		return es
	}
	return append(es, (&typeError{err: err}).in(segment))
}

func (es typeErrors) orNil() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

func (e *typeError) in(segment string) *typeError {
	e.path = append(e.path, segment)
	return e
}

func (e *typeError) Error() string {
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		b.WriteString(e.path[i])
	}
	return strings.TrimPrefix(b.String(), ".") + ": " + e.err.Error()
}

func (e *typeError) Unwrap() error { return e.err }

// fieldByIndex walks to a (possibly promoted) field, allocating embedded pointers on the way.
func fieldByIndex(rv reflect.Value, idx []int) reflect.Value {
	for i, x := range idx {
		if i > 0 && rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				rv.Set(reflect.New(rv.Type().Elem()))
			}
			rv = rv.Elem()
		}
		rv = rv.Field(x)
	}
	return rv
}

// fieldsOf maps JSON names to field index paths for a struct type, as encoding/json names them.
func fieldsOf(t reflect.Type) map[string][]int {
	out := map[string][]int{}
	collect(t, nil, out)
	return out
}

func collect(t reflect.Type, prefix []int, out map[string][]int) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		idx := append(append([]int{}, prefix...), i)
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collect(ft, idx, out)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if _, shadowed := out[name]; !shadowed || len(idx) < len(out[name]) {
			out[name] = idx
		}
	}
}

// integer returns v as an int64 when it is an integral number within int64. A float64 at or
// beyond ±2^63 is refused: the decoder makes one only of an integer written beyond 64 bits
// (-9223372036854775809 rounds to -2^63, which must not pass for math.MinInt64).
func integer(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || x <= math.MinInt64 || x >= math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

func mismatch(v any, want string) error {
	return &typeError{value: v, want: want, err: fmt.Errorf("cannot use %T as %s", v, want)}
}

// intMismatch is v, which does not fit the integer type t: a number out of t's range, or not
// an integer at all.
func intMismatch(v any, t reflect.Type) error {
	var above bool
	switch x := v.(type) {
	case int64:
		above = x > 0
	case float64:
		if x != math.Trunc(x) || math.IsNaN(x) {
			return mismatch(v, "integer")
		}
		above = x > 0
	default:
		return mismatch(v, "integer")
	}
	te := &typeError{value: v, want: "integer", outOfRange: true, err: fmt.Errorf("%v is out of the range of %s", v, t.Kind())}
	bits := t.Bits()
	unsigned := t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64
	switch {
	case above && unsigned:
		te.op, te.limit = "<=", strconv.FormatUint(1<<bits-1, 10)
	case above:
		te.op, te.limit = "<=", strconv.FormatInt(1<<(bits-1)-1, 10)
	case unsigned:
		te.op, te.limit = ">=", "0"
	default:
		te.op, te.limit = ">=", strconv.FormatInt(-1<<(bits-1), 10)
	}
	return te
}
