package schema

import (
	"fmt"
	"slices"
	"strings"

	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// ViolationKind classifies a broken structural constraint, whichever engine found it.
type ViolationKind int

// Kinds of violations.
const (
	// Missing is a required field that is absent: Tokens is the object, Names[0] the field.
	Missing ViolationKind = iota
	// UnknownField is a key the object does not declare: Tokens is the key's path.
	UnknownField
	// WrongType is a value of the wrong JSON type: Want lists the accepted types.
	WrongType
	// NotInEnum is a value outside an enumeration: Want lists the accepted values.
	NotInEnum
	// NotConst is a value other than the only one allowed, Want[0].
	NotConst
	// NoPatternMatch is a string that does not match Pattern.
	NoPatternMatch
	// OutOfRange is a number outside a bound: Op is one of >=, >, <=, < and Limit the bound.
	OutOfRange
	// TooFewItems is a list shorter than Limit items.
	TooFewItems
	// TooManyItems is a list longer than Limit items.
	TooManyItems
	// NotExactlyOne is an object that must set exactly one of Names; Set lists those it sets.
	NotExactlyOne
	// Exclusive is an object that sets all of Names, which must not be set together.
	Exclusive
	// BadFormat is a string that is not in the format named by Want[0] (date-time).
	BadFormat
	// Other is any other violation; Want[0] is its message.
	Other
)

// Violation is one structural constraint a document breaks. Both engines (JSON Schema and CUE)
// describe what they find as violations, so that the two report the same rule IDs, paths and
// messages.
type Violation struct {
	Kind ViolationKind
	// Tokens locate the offending value as JSON-pointer tokens (the object itself for Missing,
	// NotExactlyOne and Exclusive; the key for UnknownField).
	Tokens []string
	// Value is the offending value, when the engine knows it.
	Value any
	// HasValue says whether Value is set (nil is a valid JSON value).
	HasValue bool
	Names    []string
	Set      []string
	Want     []string
	Pattern  string
	Op       string
	Limit    string
}

// Error renders the violation as a field error with its rule ID, path, and a short message.
// Required fields point at the parent mapping's key, unknown fields at the key itself.
func (v Violation) Error() *field.Error {
	rule := RuleFor(v)
	p := field.PathFromTokens(v.Tokens)
	switch v.Kind {
	case Missing:
		name := ""
		if len(v.Names) > 0 {
			name = v.Names[0]
		}
		return field.Required(rule, p, fmt.Sprintf("missing field %q", name)).AtKey()
	case UnknownField:
		key := last(v.Tokens)
		switch rule {
		case spec.ID003:
			return field.Invalid(rule, p, key, keyKind(v.Tokens)+" key "+describePattern(qualifiedNamePattern)).AtKey()
		case spec.RES001:
			return field.NotSupported(rule, p, key, []string{"cpu", "memory", "pids"}).AtKey()
		}
		return field.Forbidden(rule, p, fmt.Sprintf("unknown field %q", key)).AtKey()
	case WrongType:
		if sign := beyondFloat64(v.Value); sign != 0 {
			return invalid(rule, p, v, fmt.Sprintf("expected %s, got a number %s", strings.Join(v.Want, " or "), rangeLimit[sign > 0]))
		}
		return invalid(rule, p, v, fmt.Sprintf("expected %s, got %s", strings.Join(v.Want, " or "), JSONType(v.Value)))
	case NotInEnum:
		if v.HasValue && !isScalar(v.Value) {
			return field.Invalid(rule, p, nil, "must be one of "+strings.Join(v.Want, ", ")+"; got "+JSONType(v.Value))
		}
		return field.NotSupported(rule, p, v.Value, v.Want)
	case NotConst:
		want := ""
		if len(v.Want) > 0 {
			want = v.Want[0]
		}
		return invalid(rule, p, v, "must be "+want)
	case NoPatternMatch:
		if isEmptyMissing(v) {
			return field.Required(rule, p, "must not be empty; "+describePattern(v.Pattern))
		}
		return invalid(rule, p, v, describePattern(v.Pattern))
	case OutOfRange:
		return invalid(rule, p, v, "must be "+opWords[v.Op]+" "+v.Limit)
	case TooFewItems:
		if rule == spec.MAIN001 {
			return field.Required(rule, p, "at least one main container is required")
		}
		return invalid(rule, p, v, "must have at least "+v.Limit+" item(s)")
	case TooManyItems:
		return field.TooMany(rule, p, "must have at most "+v.Limit+" item(s)")
	case NotExactlyOne:
		if len(v.Set) == 0 {
			return field.Required(rule, p, "exactly one of "+strings.Join(v.Names, ", ")+" must be set")
		}
		return field.Forbidden(rule, p, "exactly one of "+strings.Join(v.Names, ", ")+" may be set; "+strings.Join(v.Set, " and ")+" are set").AtKey()
	case Exclusive:
		return field.Forbidden(rule, p, strings.Join(v.Names, " and ")+" must not be set together")
	case BadFormat:
		return invalid(rule, p, v, "must be an RFC 3339 timestamp such as 2026-01-02T15:04:05Z")
	}
	if len(v.Want) > 0 {
		return invalid(rule, p, v, v.Want[0])
	}
	return invalid(rule, p, v, "does not match the schema")
}

// rangeLimit says where a 64-bit float ends, above (true) or below.
var rangeLimit = map[bool]string{
	true:  "too large for a 64-bit float (the largest is about 1.8e308)",
	false: "too small for a 64-bit float (the smallest is about -1.8e308)",
}

// Errors renders violations as field errors, one per violation, in order. A NotExactlyOne
// violation with several fields set becomes one error per extra field (the first set field is
// taken as the intended one), pointing at that field's key.
func Errors(vs []Violation) field.ErrorList {
	var out field.ErrorList
	for _, v := range vs {
		if v.Kind == NotExactlyOne && len(v.Set) > 1 {
			for _, extra := range v.Set[1:] {
				e := v.Error()
				e.Field = field.PathFromTokens(append(slices.Clip(v.Tokens), extra))
				out = append(out, e)
			}
			continue
		}
		out = append(out, v.Error())
	}
	return out
}

var opWords = map[string]string{">=": "at least", ">": "greater than", "<=": "at most", "<": "less than"}

func invalid(rule string, p *field.Path, v Violation, detail string) *field.Error {
	if v.HasValue && isScalar(v.Value) {
		return field.Invalid(rule, p, v.Value, detail)
	}
	return field.Invalid(rule, p, nil, detail)
}

func isScalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

func last(toks []string) string {
	if len(toks) == 0 {
		return ""
	}
	return toks[len(toks)-1]
}

// keyKind names the map a key belongs to, for messages.
func keyKind(toks []string) string {
	if len(toks) >= 2 && toks[len(toks)-2] == "annotations" {
		return "annotation"
	}
	return "label"
}

// JSONType names the JSON type of a decoded value as JSON Schema does.
func JSONType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case float32:
		if x == float32(int64(x)) {
			return "integer"
		}
		return "number"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "integer"
	case interface{ String() string }: // json.Number
		s := x.String()
		if strings.ContainsAny(s, ".eE") {
			return "number"
		}
		return "integer"
	}
	return fmt.Sprintf("%T", v)
}
