package kubernetes

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// Quantity is a resource quantity as Kubernetes writes it ("100m", "64Mi", "1.5", "2e3"), kept
// as the text it was given. JSON numbers are accepted and kept in their decimal form.
type Quantity string

// quantityPattern is the syntax of resource.Quantity: a signed decimal number and an optional
// binary-SI, decimal-SI or exponent suffix.
// It is compiled on first use: podspec's runtime verbs never read a quantity this way, and
// package initialisation is on their start path.
var quantityPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?$`)
})

// quantityProblem says why s is not a Kubernetes quantity, or "" when it is one.
func quantityProblem(s string) string {
	if !quantityPattern().MatchString(s) {
		return "must be a quantity such as 100m, 64Mi or 1.5 (a number and an optional suffix: Ki Mi Gi Ti Pi Ei, n u m k M G T P E, or an exponent)"
	}
	return ""
}

// IntOrString is a value that is either a 32-bit integer or a string (a port number or name,
// a count or a percentage).
type IntOrString struct {
	// IsString says which of IntVal and StrVal holds the value.
	IsString bool
	IntVal   int32
	StrVal   string
}

// MarshalJSON writes the integer or the string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	if v.IsString {
		return []byte(strconv.Quote(v.StrVal)), nil
	}
	return []byte(strconv.FormatInt(int64(v.IntVal), 10)), nil
}

// String renders the value as written.
func (v IntOrString) String() string {
	if v.IsString {
		return v.StrVal
	}
	return strconv.Itoa(int(v.IntVal))
}

// Time is an RFC 3339 timestamp, kept as written.
type Time string

// Duration is a Go duration string such as "1m30s", kept as written.
type Duration string

// Bytes is binary data, base64-encoded in JSON.
type Bytes string

// RawJSON is a value the API leaves to another schema (a List's items, managed fields), kept as
// its JSON-compatible tree.
type RawJSON struct {
	Value any
}

// MarshalJSON writes the tree back out.
func (r RawJSON) MarshalJSON() ([]byte, error) { return marshalJSON(r.Value) }

// checkSpecial checks and decodes a value of one of the types above; handled is false for any
// other type.
func checkSpecial(v any, t any) (out any, problem string, handled bool) {
	switch t.(type) {
	case Quantity:
		switch x := v.(type) {
		case string:
			if p := quantityProblem(x); p != "" {
				return nil, p, true
			}
			return Quantity(x), "", true
		case int64:
			return Quantity(strconv.FormatInt(x, 10)), "", true
		case float64:
			return Quantity(strconv.FormatFloat(x, 'f', -1, 64)), "", true
		}
		return nil, "must be a quantity (a string such as 100m or 64Mi, or a number), not " + jsonType(v), true
	case IntOrString:
		switch x := v.(type) {
		case string:
			return IntOrString{IsString: true, StrVal: x}, "", true
		case int64:
			if x < -1<<31 || x > 1<<31-1 {
				return nil, fmt.Sprintf("must be a 32-bit integer or a string, %d is out of range", x), true
			}
			return IntOrString{IntVal: int32(x)}, "", true
		}
		return nil, "must be an integer or a string, not " + jsonType(v), true
	case Time:
		s, ok := v.(string)
		if !ok {
			return nil, "must be an RFC 3339 time string, not " + jsonType(v), true
		}
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return nil, "must be an RFC 3339 time such as 2026-01-02T15:04:05Z", true
		}
		return Time(s), "", true
	case Duration:
		s, ok := v.(string)
		if !ok {
			return nil, "must be a duration string such as 1m30s, not " + jsonType(v), true
		}
		if _, err := time.ParseDuration(s); err != nil {
			return nil, "must be a duration such as 1m30s", true
		}
		return Duration(s), "", true
	case Bytes:
		s, ok := v.(string)
		if !ok {
			return nil, "must be a base64 string, not " + jsonType(v), true
		}
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			return nil, "must be base64-encoded", true
		}
		return Bytes(s), "", true
	case RawJSON:
		return RawJSON{Value: v}, "", true
	}
	return nil, "", false
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a number that is not an integer"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
