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
	octalLiteral  = regexp.MustCompile(`^[-+]?0[0-7]+\b`)
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
	return resolvePlain(s)
}

// resolvePlain resolves an untagged plain scalar.
func resolvePlain(s string) scalar {
	if r, ok := plainWord(s); ok {
		return r
	}
	if !numberStart(s[0]) {
		return scalar{value: s}
	}
	return resolveNumber(s)
}

// plainWord resolves the plain scalars that are words of YAML 1.1 (null, booleans, and the
// empty scalar); ok is false for every other scalar. Its values are nil or booleans, which
// need no allocation.
func plainWord(s string) (scalar, bool) {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return scalar{value: nil}, true
	case "true", "True", "TRUE":
		return scalar{value: true}, true
	case "false", "False", "FALSE":
		return scalar{value: false}, true
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON":
		return scalar{value: true, ambiguous: "YAML 1.1 (Kubernetes) reads it as boolean true, YAML 1.2 as a string"}, true
	case "n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return scalar{value: false, ambiguous: "YAML 1.1 (Kubernetes) reads it as boolean false, YAML 1.2 as a string"}, true
	}
	return scalar{}, false
}

// numberStart reports whether a plain scalar starting with c may be a number.
func numberStart(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.'
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
	if !strings.ContainsAny(s, "0123456789") {
		return scalar{value: s} // every pattern below needs a digit ("-c", "-", ".")
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
// are then printed (sigs.k8s.io/yaml turns the key `on` into "true"). The returned scalar
// carries the ambiguity (MAN-008), if any; its value is set only for keys that are not strings.
func keyString(n *yaml.Node) (string, scalar) {
	if n.Kind != yaml.ScalarNode {
		return "", scalar{}
	}
	if n.Style&yaml.TaggedStyle == 0 {
		if n.Style&quotedStyles != 0 {
			return n.Value, scalar{}
		}
		return plainKeyString(n.Value)
	}
	return scalarKey(resolveScalar(n), n.Value)
}

// plainKeyString is keyString of an untagged plain key. Most keys are plain words that resolve
// to themselves; those are returned without boxing them in an interface (the scalar then holds
// no value, only no ambiguity).
func plainKeyString(s string) (string, scalar) {
	if s != "" && !numberStart(s[0]) {
		if _, word := plainWord(s); !word {
			return s, scalar{}
		}
	}
	return scalarKey(resolvePlain(s), s)
}

// scalarKey prints a resolved key scalar whose text is s.
func scalarKey(r scalar, s string) (string, scalar) {
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
	return s, r
}

// OctalAt returns the YAML 1.1 octal literal at the start of text (a plain scalar such as
// 0400, as a MAN-008 finding's position points at) and the value YAML 1.1 reads in it.
func OctalAt(text string) (literal string, value int64, ok bool) {
	literal = octalLiteral.FindString(text)
	if literal == "" {
		return "", 0, false
	}
	v, err := strconv.ParseInt(literal, 8, 64)
	return literal, v, err == nil
}

// BoolWordAt returns the YAML 1.1 boolean word at the start of text (yes, no, on, off, y, n in
// their spellings, as a MAN-008 finding's position points at) and the boolean YAML 1.1 reads.
func BoolWordAt(text string) (word string, value, ok bool) {
	end := strings.IndexFunc(text, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
	if end < 0 {
		end = len(text)
	}
	r, isWord := plainWord(text[:end])
	b, isBool := r.value.(bool)
	if !isWord || !isBool || r.ambiguous == "" {
		return "", false, false
	}
	return text[:end], b, true
}
