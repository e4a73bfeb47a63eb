package schema

import (
	"regexp"
	"strings"
)

// pattern is a compiled "pattern" or "patternProperties" key. The schemas generated from the
// CUE definitions use a handful of fixed patterns (names, labels, quantities) on nearly every
// string they check; for those, match is a hand-written function that accepts exactly the
// strings the regular expression matches (TestFixedPatternsMatchTheirRegexps and
// FuzzFixedPatterns hold them to it) at a fraction of the cost of regexp's backtracker. Any
// other pattern is matched by re.
type pattern struct {
	re    *regexp.Regexp
	match func(string) bool
}

// newPattern compiles expr, with its hand-written matcher when it has one.
func newPattern(expr string) (*pattern, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	p := &pattern{re: re, match: fixedPatterns[expr]}
	if p.match == nil {
		p.match = re.MatchString
	}
	return p, nil
}

// MatchString reports whether s matches the pattern.
func (p *pattern) MatchString(s string) bool { return p.match(s) }

// String is the pattern's source text, as violations quote it.
func (p *pattern) String() string { return p.re.String() }

// fixedPatterns maps the patterns the generated schemas use (see cue/*.cue) to matchers equal
// to their regular expressions. Go's regexp is RE2 without flags: `$` matches only at the end
// of the text and `.` matches any character but a newline.
var fixedPatterns = map[string]func(string) bool{
	`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`: isDNSLabel,
	`^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$`: func(s string) bool {
		return s == "" || isLabelName(s)
	},
	`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`: isQualifiedName,
	`^\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$`:                              isQuantity,
	`^[ -<>-~]+$`: func(s string) bool {
		return s != "" && all(s, func(c byte) bool { return c >= ' ' && c <= '~' && c != '=' })
	},
	`^/`:   func(s string) bool { return strings.HasPrefix(s, "/") },
	`^.+$`: func(s string) bool { return s != "" && !strings.Contains(s, "\n") },
	`^SIG[A-Z0-9+-]+$`: func(s string) bool {
		rest, ok := strings.CutPrefix(s, "SIG")
		return ok && rest != "" && all(rest, func(c byte) bool { return isUpper(c) || isDigit(c) || c == '+' || c == '-' })
	},
	`^[A-Z][A-Za-z0-9]*$`: func(s string) bool { return s != "" && isUpper(s[0]) && all(s[1:], isAlnum) },
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isUpper(c byte) bool      { return c >= 'A' && c <= 'Z' }
func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || isDigit(c) }
func isAlnum(c byte) bool      { return isLowerAlnum(c) || isUpper(c) }

// all reports whether every byte of s satisfies ok.
func all(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// isDNSLabel is ^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$: 1 to 63 lower-case letters, digits and
// '-', starting and ending with a letter or digit.
func isDNSLabel(s string) bool { return len(s) <= 63 && isDNSLabelChars(s) }

// isDNSLabelChars is [a-z0-9]([-a-z0-9]*[a-z0-9])? with no bound on the length.
func isDNSLabelChars(s string) bool {
	return s != "" && isLowerAlnum(s[0]) && isLowerAlnum(s[len(s)-1]) &&
		all(s, func(c byte) bool { return isLowerAlnum(c) || c == '-' })
}

// isLabelName is [A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?: 1 to 63 letters, digits, '-',
// '_' and '.', starting and ending with a letter or digit.
func isLabelName(s string) bool {
	return s != "" && len(s) <= 63 && isAlnum(s[0]) && isAlnum(s[len(s)-1]) &&
		all(s, func(c byte) bool { return isAlnum(c) || c == '-' || c == '_' || c == '.' })
}

// isQualifiedName is a label name with an optional prefix of dot-separated DNS labels (of any
// length) and a '/'. The name holds no '/', so the first '/' ends the prefix.
func isQualifiedName(s string) bool {
	prefix, name, hasPrefix := strings.Cut(s, "/")
	if !hasPrefix {
		return isLabelName(s)
	}
	if !isLabelName(name) {
		return false
	}
	for label := range strings.SplitSeq(prefix, ".") {
		if !isDNSLabelChars(label) {
			return false
		}
	}
	return true
}

// isQuantity is ^\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?(suffix)?$. An 'E' not
// followed by an exponent's digits is the exa suffix ("1E", "1Ei").
func isQuantity(s string) bool {
	s = strings.TrimPrefix(s, "+")
	i := skipDigits(s, 0)
	if i < len(s) && s[i] == '.' {
		j := skipDigits(s, i+1)
		if i == 0 && j == i+1 {
			return false // "." alone, or "." before something that is not a digit
		}
		i = j
	} else if i == 0 {
		return false
	}
	rest := s[i:]
	if isQuantitySuffix(rest) {
		return true
	}
	if rest[0] != 'e' && rest[0] != 'E' {
		return false
	}
	j := 1
	if j < len(rest) && (rest[j] == '-' || rest[j] == '+') {
		j++
	}
	k := skipDigits(rest, j)
	return k > j && isQuantitySuffix(rest[k:])
}

// skipDigits returns the index of the first byte of s at or after i that is not a decimal digit.
func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isQuantitySuffix(s string) bool {
	switch s {
	case "", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei":
		return true
	}
	return false
}
