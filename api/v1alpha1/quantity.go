package v1alpha1

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Quantity is a resource amount as written in a manifest: a string such as "500m", "512Mi" or
// "1", or a plain JSON number. The original text is kept so that a round trip is lossless.
type Quantity string

// UnmarshalJSON accepts a string or a number.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*q = Quantity(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("quantity must be a string or a number")
	}
	*q = Quantity(n.String())
	return nil
}

// MarshalJSON writes the quantity as a string.
func (q Quantity) MarshalJSON() ([]byte, error) { return json.Marshal(string(q)) }

var binarySuffixes = map[string]float64{
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60,
}

var decimalSuffixes = map[string]float64{
	"m": 1e-3, "": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
}

// Value parses the quantity with Kubernetes' suffixes (binary Ki..Ei, decimal m, k..E, or an
// exponent such as 1e3) and returns its value in base units (cores, bytes, a count); an error
// for a quantity that is not a non-negative number with a known suffix.
func (q Quantity) Value() (float64, error) {
	s := strings.TrimSpace(string(q))
	if s == "" {
		return 0, fmt.Errorf("empty quantity")
	}
	num, suffix := s, ""
	for i, r := range s {
		if (r < '0' || r > '9') && r != '.' && r != '+' && r != '-' {
			if (r == 'e' || r == 'E') && i+1 < len(s) && (s[i+1] == '-' || s[i+1] == '+' || (s[i+1] >= '0' && s[i+1] <= '9')) {
				continue
			}
			num, suffix = s[:i], s[i:]
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("quantity %q is not a number with an optional suffix", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("quantity %q is negative", s)
	}
	if m, ok := binarySuffixes[suffix]; ok {
		return v * m, nil
	}
	if m, ok := decimalSuffixes[suffix]; ok {
		return v * m, nil
	}
	return 0, fmt.Errorf("quantity %q has an unknown suffix %q", s, suffix)
}

// MilliCPU returns a cpu quantity in thousandths of a core ("500m" → 500, "2" → 2000).
func (q Quantity) MilliCPU() (int64, error) {
	v, err := q.Value()
	if err != nil {
		return 0, err
	}
	m := math.Ceil(v * 1000)
	if m >= math.MaxInt64 { // float64(MaxInt64) is 2^63, which int64 cannot hold
		return 0, fmt.Errorf("quantity %q is too large", string(q))
	}
	return int64(m), nil
}

// Bytes returns a memory quantity in bytes ("512Mi" → 536870912).
func (q Quantity) Bytes() (int64, error) {
	v, err := q.Value()
	if err != nil {
		return 0, err
	}
	if b := math.Ceil(v); b >= math.MaxInt64 {
		return 0, fmt.Errorf("quantity %q is too large", string(q))
	}
	return int64(math.Ceil(v)), nil
}

// Count returns a whole-number quantity such as a pid limit.
func (q Quantity) Count() (int64, error) {
	v, err := q.Value()
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || v >= math.MaxInt64 {
		return 0, fmt.Errorf("quantity %q is not a whole number", string(q))
	}
	return int64(v), nil
}
