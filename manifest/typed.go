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
type typedDecoder struct {
	// partial makes a value that does not fit its field leave the field unset and decoding go
	// on; decode then returns every such value (typeErrors) instead of the first.
	partial bool
	// shared are the precomputed field maps of the API types (read only).
	shared map[reflect.Type]map[string][]int
	// sharedImplements says, for the API types, which implement json.Unmarshaler (read only).
	sharedImplements map[reflect.Type]bool
	// fields are field maps computed during this decode.
	fields map[reflect.Type]map[string][]int
	// implements remembers which types implement json.Unmarshaler (through a pointer).
	implements map[reflect.Type]bool
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	quantityType    = reflect.TypeFor[v1alpha1.Quantity]()
)

func (td *typedDecoder) decode(v any, rv reflect.Value) error {
	if rv.Kind() == reflect.Pointer {
		if v == nil {
			rv.SetZero()
			return nil
		}
		fresh := rv.IsNil()
		if fresh {
			rv.Set(reflect.New(rv.Type().Elem()))
		}
		err := td.decode(v, rv.Elem())
		if te, leaf := err.(*typeError); leaf && len(te.path) == 0 && fresh {
			rv.SetZero() // the value itself does not fit: leave the field unset, not zero
		}
		return err
	}
	if rv.CanAddr() && td.unmarshaler(rv.Type()) {
		if s, ok := v.(string); ok && rv.Type() == quantityType && utf8.ValidString(s) {
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
	if v == nil {
		return nil // JSON null leaves non-pointer values alone, as encoding/json does
	}
	switch rv.Kind() {
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return mismatch(v, "string")
		}
		rv.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return mismatch(v, "boolean")
		}
		rv.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := integer(v)
		if !ok || rv.OverflowInt(n) {
			return intMismatch(v, rv.Type())
		}
		rv.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := integer(v)
		if !ok || n < 0 || rv.OverflowUint(uint64(n)) {
			return intMismatch(v, rv.Type())
		}
		rv.SetUint(uint64(n))
	case reflect.Float32, reflect.Float64:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case int64:
			f = float64(x)
		default:
			return mismatch(v, "number")
		}
		if math.IsInf(f, 0) || math.IsNaN(f) || rv.OverflowFloat(f) {
			return &typeError{value: v, err: fmt.Errorf("%v is not a finite %s", v, rv.Kind())}
		}
		rv.SetFloat(f)
	case reflect.Slice:
		a, ok := v.([]any)
		if !ok {
			return mismatch(v, "array")
		}
		s := reflect.MakeSlice(rv.Type(), len(a), len(a))
		var errs typeErrors
		for i, e := range a {
			if err := td.decode(e, s.Index(i)); err != nil {
				if errs = errs.within(err, "["+strconv.Itoa(i)+"]"); !td.partial {
					return errs[0]
				}
			}
		}
		rv.Set(s)
		return errs.orNil()
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return mismatch(v, "object")
		}
		if rv.Type().Key().Kind() != reflect.String {
			return &typeError{err: fmt.Errorf("unsupported map key type %s", rv.Type().Key())}
		}
		if rv.IsNil() {
			rv.Set(reflect.MakeMapWithSize(rv.Type(), len(m)))
		}
		et := rv.Type().Elem()
		var errs typeErrors
		for k, e := range m {
			ev := reflect.New(et).Elem()
			if err := td.decode(e, ev); err != nil {
				if errs = errs.within(err, "."+k); !td.partial {
					return errs[0]
				}
				continue
			}
			rv.SetMapIndex(reflect.ValueOf(k).Convert(rv.Type().Key()), ev)
		}
		return errs.orNil()
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return mismatch(v, "object")
		}
		fields := td.fieldsOf(rv.Type())
		var errs typeErrors
		for k, e := range m {
			idx, known := fields[k]
			if !known {
				continue
			}
			if err := td.decode(e, fieldByIndex(rv, idx)); err != nil {
				if errs = errs.within(err, "."+k); !td.partial {
					return errs[0]
				}
			}
		}
		return errs.orNil()
	case reflect.Interface:
		if rv.NumMethod() == 0 {
			rv.Set(reflect.ValueOf(v))
			return nil
		}
		return &typeError{err: fmt.Errorf("cannot decode into %s", rv.Type())}
	default:
		return &typeError{err: fmt.Errorf("cannot decode into %s", rv.Type())}
	}
	return nil
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

// unmarshaler reports whether *t implements json.Unmarshaler, remembering the answer.
func (td *typedDecoder) unmarshaler(t reflect.Type) bool {
	if u, ok := td.sharedImplements[t]; ok {
		return u
	}
	if u, ok := td.implements[t]; ok {
		return u
	}
	u := reflect.PointerTo(t).Implements(unmarshalerType)
	if td.implements == nil {
		td.implements = map[reflect.Type]bool{}
	}
	td.implements[t] = u
	return u
}

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

// apiTypes holds the field maps of every struct type reachable from Pod and Notification, and
// which of the types reachable implement json.Unmarshaler, computed once and never modified
// afterwards.
type apiTypes struct {
	fields     map[reflect.Type]map[string][]int
	implements map[reflect.Type]bool
}

var apiFields = sync.OnceValue(func() apiTypes {
	td := &typedDecoder{fields: map[reflect.Type]map[string][]int{}}
	seen := map[reflect.Type]bool{}
	var visit func(t reflect.Type)
	visit = func(t reflect.Type) {
		for {
			if _, done := seen[t]; done {
				return
			}
			td.unmarshaler(t)
			seen[t] = true
			if t.Kind() != reflect.Pointer && t.Kind() != reflect.Slice && t.Kind() != reflect.Map {
				break
			}
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for _, idx := range td.fieldsOf(t) {
			visit(t.FieldByIndex(idx).Type)
		}
	}
	visit(reflect.TypeFor[v1alpha1.Pod]())
	visit(reflect.TypeFor[v1alpha1.Notification]())
	return apiTypes{fields: td.fields, implements: td.implements}
})

// fieldsOf maps JSON names to field index paths for a struct type, as encoding/json names them.
func (td *typedDecoder) fieldsOf(t reflect.Type) map[string][]int {
	if f, ok := td.fields[t]; ok {
		return f
	}
	if td.shared != nil {
		if f, ok := td.shared[t]; ok {
			return f
		}
	}
	out := map[string][]int{}
	td.collect(t, nil, out)
	if td.fields == nil {
		td.fields = map[reflect.Type]map[string][]int{}
	}
	td.fields[t] = out
	return out
}

func (td *typedDecoder) collect(t reflect.Type, prefix []int, out map[string][]int) {
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
				td.collect(ft, idx, out)
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
