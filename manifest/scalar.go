package manifest

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Patterns of YAML 1.1 plain scalars that are numbers. They are never written to after package
// initialisation.
var (
	reDecimal     = regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*)$`)
	reOctal11     = regexp.MustCompile(`^[-+]?0[0-7]+$`)
	reHex         = regexp.MustCompile(`^[-+]?0x[0-9a-fA-F]+$`)
	reOctal12     = regexp.MustCompile(`^[-+]?0o[0-7]+$`)
	reBinary      = regexp.MustCompile(`^[-+]?0b[01]+$`)
	reFloat       = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	reSexagesimal = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$`)
)

// scalar is a resolved scalar: its value and, when YAML 1.1 and YAML 1.2 read the plain
// scalar differently, why (a MAN-008 warning).
type scalar struct {
	value     any
	ambiguous string
}

const quotedStyles = yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle

// resolveScalar gives a scalar node its JSON value the way sigs.k8s.io/yaml (YAML 1.1, what
// Kubernetes uses) does, and says when YAML 1.2 would read the same plain text differently.
func resolveScalar(n *yaml.Node) scalar {
	s := n.Value
	if n.Style&yaml.TaggedStyle != 0 {
		return resolveTagged(n.Tag, s)
	}
	if n.Style&quotedStyles != 0 {
		return scalar{value: s}
	}
	switch s {
	case "", "~", "null", "Null", "NULL":
		return scalar{value: nil}
	case "true", "True", "TRUE":
		return scalar{value: true}
	case "false", "False", "FALSE":
		return scalar{value: false}
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON":
		return scalar{value: true, ambiguous: "YAML 1.1 (Kubernetes) reads it as boolean true, YAML 1.2 as a string"}
	case "n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return scalar{value: false, ambiguous: "YAML 1.1 (Kubernetes) reads it as boolean false, YAML 1.2 as a string"}
	}
	c := s[0]
	if !(c >= '0' && c <= '9') && c != '-' && c != '+' && c != '.' {
		return scalar{value: s}
	}
	return resolveNumber(s)
}

func resolveNumber(s string) scalar {
	if isPlainDecimal(s) {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return scalar{value: v}
		}
	}
	switch s {
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return scalar{value: math.Inf(1)}
	case "-.inf", "-.Inf", "-.INF":
		return scalar{value: math.Inf(-1)}
	case ".nan", ".NaN", ".NAN":
		return scalar{value: math.NaN()}
	}
	if strings.Trim(s, numberChars) != "" {
		return scalar{value: s} // a character none of the patterns below accepts ("500m", "64Mi")
	}
	plain := s
	underscores := strings.Contains(s, "_")
	if underscores {
		plain = strings.ReplaceAll(s, "_", "")
		if plain == "" {
			return scalar{value: s}
		}
	}
	var why string
	if underscores {
		why = "YAML 1.1 (Kubernetes) ignores the underscores and reads a number, YAML 1.2 reads a string"
	}
	switch {
	case reDecimal.MatchString(plain):
		if v, err := strconv.ParseInt(plain, 10, 64); err == nil {
			return scalar{value: v, ambiguous: why}
		}
		if f, err := strconv.ParseFloat(plain, 64); err == nil {
			return scalar{value: f, ambiguous: why}
		}
	case reOctal11.MatchString(plain):
		if v, err := strconv.ParseInt(plain, 8, 64); err == nil {
			return scalar{value: v, ambiguous: "YAML 1.1 (Kubernetes) reads a leading zero as octal (" +
				strconv.FormatInt(v, 10) + "), YAML 1.2 as decimal"}
		}
	case reHex.MatchString(plain), reOctal12.MatchString(plain):
		if v, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return scalar{value: v, ambiguous: why}
		}
	case reBinary.MatchString(plain):
		if v, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return scalar{value: v, ambiguous: "YAML 1.1 (Kubernetes) reads it as binary number " +
				strconv.FormatInt(v, 10) + ", YAML 1.2 as a string"}
		}
	case reFloat.MatchString(plain):
		if f, err := strconv.ParseFloat(plain, 64); err == nil {
			return scalar{value: f, ambiguous: why}
		}
	}
	if reSexagesimal.MatchString(s) {
		return scalar{value: s, ambiguous: "YAML 1.1 reads it as a base-60 (sexagesimal) number, YAML 1.2 as a string"}
	}
	return scalar{value: s}
}

// numberChars are the characters the number patterns accept (digits, signs, the point, the
// exponent, hexadecimal digits, the 0x, 0o and 0b prefixes, the underscore, the colon).
const numberChars = "0123456789+-._:xXoObBeEaAcCdDfF"

// isPlainDecimal reports whether s is an optionally signed decimal integer without a leading
// zero (the common case, resolved without regular expressions).
func isPlainDecimal(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// resolveTagged honours an explicit tag such as !!str or !!int.
func resolveTagged(tag, s string) scalar {
	switch tag {
	case "!!null":
		return scalar{value: nil}
	case "!!bool":
		switch s {
		case "true", "True", "TRUE", "y", "Y", "yes", "Yes", "YES", "on", "On", "ON":
			return scalar{value: true}
		case "false", "False", "FALSE", "n", "N", "no", "No", "NO", "off", "Off", "OFF":
			return scalar{value: false}
		}
	case "!!int":
		if v, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64); err == nil {
			return scalar{value: v}
		}
	case "!!float":
		if f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64); err == nil {
			return scalar{value: f}
		}
	}
	return scalar{value: s}
}

// keyString is the JSON object key a mapping key node becomes: scalars resolve as values and
// are then printed (sigs.k8s.io/yaml turns the key `on` into "true").
func keyString(n *yaml.Node) (string, scalar) {
	if n.Kind != yaml.ScalarNode {
		return "", scalar{}
	}
	// Fast path: most keys are plain words.
	r := resolveScalar(n)
	switch v := r.value.(type) {
	case string:
		return v, r
	case nil:
		return "null", r
	case bool:
		return strconv.FormatBool(v), r
	case int64:
		return strconv.FormatInt(v, 10), r
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), r
	}
	return n.Value, r
}
