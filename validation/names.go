package validation

import (
	"fmt"
	"slices"
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// Limits of Kubernetes' name syntaxes.
const (
	dnsLabelMaxLength     = 63
	dnsSubdomainMaxLength = 253
	qualifiedNameMaxLen   = 63
	labelValueMaxLength   = 63
	// annotationsMaxBytes is Kubernetes' bound on the total size of an object's annotations.
	annotationsMaxBytes = 256 * 1024
)

const dnsLabelDetail = "must be a DNS label: at most 63 lower-case letters, digits or '-', starting and ending with a letter or digit"

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// dnsLabelProblem returns why s is not a DNS-1123 label, or "" if it is one.
func dnsLabelProblem(s string) string {
	if len(s) > dnsLabelMaxLength {
		return fmt.Sprintf("must be at most %d characters (is %d)", dnsLabelMaxLength, len(s))
	}
	if !isDNSLabelChars(s) {
		return dnsLabelDetail
	}
	return ""
}

// isDNSLabelChars reports whether s matches [a-z0-9]([-a-z0-9]*[a-z0-9])? (no length bound).
func isDNSLabelChars(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// dnsSubdomainProblem returns why s is not a DNS-1123 subdomain, or "" if it is one.
func dnsSubdomainProblem(s string) string {
	if len(s) > dnsSubdomainMaxLength {
		return fmt.Sprintf("must be at most %d characters (is %d)", dnsSubdomainMaxLength, len(s))
	}
	for part := range strings.SplitSeq(s, ".") {
		if !isDNSLabelChars(part) {
			return "must be a DNS subdomain: dot-separated parts of lower-case letters, digits or '-', each starting and ending with a letter or digit"
		}
	}
	return ""
}

// isNameChars reports whether s matches ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9].
func isNameChars(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// qualifiedNameProblem returns why s is not a Kubernetes qualified name ([prefix/]name, the
// syntax of label and annotation keys), or "" if it is one.
func qualifiedNameProblem(s string) string {
	name := s
	if i := strings.IndexByte(s, '/'); i >= 0 {
		prefix := s[:i]
		name = s[i+1:]
		if prefix == "" {
			return "prefix before '/' must not be empty"
		}
		if p := dnsSubdomainProblem(prefix); p != "" {
			return "prefix " + p
		}
	}
	switch {
	case name == "":
		return "name part must not be empty"
	case len(name) > qualifiedNameMaxLen:
		return fmt.Sprintf("name part must be at most %d characters (is %d)", qualifiedNameMaxLen, len(name))
	case !isNameChars(name):
		return "name part must consist of letters, digits, '-', '_' or '.', starting and ending with a letter or digit, with an optional DNS-subdomain prefix and '/'"
	}
	return ""
}

// labelValueProblem returns why s is not a valid label value, or "" if it is one.
func labelValueProblem(s string) string {
	switch {
	case s == "":
		return ""
	case len(s) > labelValueMaxLength:
		return fmt.Sprintf("must be at most %d characters (is %d)", labelValueMaxLength, len(s))
	case !isNameChars(s):
		return "must be empty or consist of letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	}
	return ""
}

// validateObjectMeta checks metadata.name (ID-001), labels and annotations (ID-003).
func validateObjectMeta(m *v1alpha1.ObjectMeta, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	np := p.Child("name")
	if m.Name == "" {
		errs = append(errs, field.Required(spec.MAN003, np, "every object needs a name"))
	} else if d := dnsLabelProblem(m.Name); d != "" {
		errs = append(errs, field.Invalid(spec.ID001, np, m.Name, d))
	}
	errs = append(errs, validateLabels(spec.ID003, m.Labels, p.Child("labels"))...)
	errs = append(errs, validateAnnotations(spec.ID003, m.Annotations, p.Child("annotations"))...)
	return errs
}

// DNSLabelProblem returns why s is not a DNS-1123 label, or "" if it is one.
func DNSLabelProblem(s string) string { return dnsLabelProblem(s) }

// DNSSubdomainProblem returns why s is not a DNS-1123 subdomain, or "" if it is one.
func DNSSubdomainProblem(s string) string { return dnsSubdomainProblem(s) }

// ValidateLabels checks label keys and values with Kubernetes' syntax, reporting under rule.
func ValidateLabels(rule string, labels map[string]string, p *field.Path) field.ErrorList {
	return validateLabels(rule, labels, p)
}

// ValidateAnnotations checks annotation keys and their total size with Kubernetes' limits,
// reporting under rule.
func ValidateAnnotations(rule string, ann map[string]string, p *field.Path) field.ErrorList {
	return validateAnnotations(rule, ann, p)
}

// validateLabels checks label keys (qualified names) and values, in key order.
func validateLabels(rule string, labels map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(labels) {
		if d := qualifiedNameProblem(k); d != "" {
			errs = append(errs, field.Invalid(rule, p.Key(k), k, "label key "+d).AtKey())
		}
		if d := labelValueProblem(labels[k]); d != "" {
			errs = append(errs, field.Invalid(rule, p.Key(k), labels[k], "label value "+d))
		}
	}
	return errs
}

// validateAnnotations checks annotation keys and the annotations' total size.
func validateAnnotations(rule string, ann map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	total := 0
	for _, k := range sortedKeys(ann) {
		total += len(k) + len(ann[k])
		if d := qualifiedNameProblem(k); d != "" {
			errs = append(errs, field.Invalid(rule, p.Key(k), k, "annotation key "+d).AtKey())
		}
	}
	if total > annotationsMaxBytes {
		errs = append(errs, field.TooMany(rule, p,
			fmt.Sprintf("annotations take %d bytes, more than the %d allowed", total, annotationsMaxBytes)))
	}
	return errs
}

// sortedKeys returns a map's keys in order, so that errors come out deterministically.
func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// enumProblem reports a value outside its enumeration (MAN-002), or nil.
func enumProblem[T ~string](p *field.Path, v T, valid ...T) *field.Error {
	if slices.Contains(valid, v) {
		return nil
	}
	names := make([]string, len(valid))
	for i, s := range valid {
		names[i] = string(s)
	}
	return field.NotSupported(spec.MAN002, p, string(v), names)
}

// QualifiedNameProblem says why s is not a Kubernetes qualified name (an optional DNS subdomain
// prefix and '/', then a name of at most 63 characters), or "" when it is one.
func QualifiedNameProblem(s string) string { return qualifiedNameProblem(s) }
