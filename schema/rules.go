package schema

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"podspec.dev/podspec/spec"
)

// Patterns of the API, exactly as cue/*.cue writes them (a test checks that every pattern in
// the generated schemas has a description here).
const (
	dnsLabelPattern      = `^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`
	qualifiedNamePattern = `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`
	labelValuePattern    = `^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$`
	signalPattern        = `^SIG[A-Z0-9+-]+$`
	quantityPattern      = `^\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$`
	imagePattern         = `^.+$`
	absolutePathPattern  = `^/`
	envNamePattern       = `^[ -<>-~]+$`
	eventTypePattern     = `^[A-Z][A-Za-z0-9]*$`
	capabilityPattern    = `^[A-Z][A-Z0-9_]*$`
	portNameLenPattern   = `^[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?$`
	portNameDashPattern  = `^[a-z0-9]+(-[a-z0-9]+)*$`
	portNameLetterPat    = `[a-z]`
	headerNamePattern    = "^[-A-Za-z0-9!#$%&'*+.^_`|~]+$"
)

var patternWords = map[string]string{
	dnsLabelPattern:      "must be a DNS label: at most 63 lower-case letters, digits or '-', starting and ending with a letter or digit",
	qualifiedNamePattern: "must be an optional DNS subdomain prefix and '/', then a name of at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
	labelValuePattern:    "must be empty or at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
	signalPattern:        "must be a signal name in upper case with its SIG prefix, e.g. SIGTERM or SIGRTMIN+3",
	quantityPattern:      "must be a quantity such as 500m, 512Mi, 1.5 or 2",
	imagePattern:         "must be an image reference: [HOST[:PORT]/]PATH[:TAG][@DIGEST] or oci:PATH[:TAG|@DIGEST]",
	absolutePathPattern:  "must be an absolute path",
	envNamePattern:       "must be printable ASCII characters other than '='",
	capabilityPattern:    "must be a capability name in upper case without CAP_, e.g. NET_BIND_SERVICE",
	eventTypePattern:     "must be an event type: a capital letter, then letters and digits (e.g. ContainerStarted)",
	portNameLenPattern:   "must be a port name: at most 15 lower-case letters, digits or '-', starting and ending with a letter or digit",
	portNameDashPattern:  "must be a port name without two '-' in a row",
	portNameLetterPat:    "must be a port name with at least one letter",
	headerNamePattern:    "must be an HTTP header name: letters, digits and !#$%&'*+-.^_`|~",
}

// describePattern says in words what a pattern of the API requires.
func describePattern(re string) string {
	if w, ok := patternWords[re]; ok {
		return w
	}
	return "must match " + re
}

// A ruleEntry maps violations at matching paths to a requirement ID. A path pattern is a
// slash-separated list of tokens; "*" matches any one token and "a|b" either token.
type ruleEntry struct {
	kinds []ViolationKind // nil: any kind
	path  string
	rule  string
}

// valueKinds are the violations of a value's content (not of its type or presence).
var valueKinds = []ViolationKind{NotInEnum, NotConst, NoPatternMatch, OutOfRange, TooFewItems, TooManyItems, BadFormat}

const containerLists = "initContainers|containers|deferContainers"

// rules maps schema violations to the more specific requirement IDs the semantic checks use
// for the same constraint, so that findings from both de-duplicate. First match wins; anything
// unmatched is MAN-003 (Missing), MAN-004 (UnknownField) or MAN-002.
var rules = []ruleEntry{
	{[]ViolationKind{NotConst, WrongType, NotInEnum}, "apiVersion|kind", spec.MAN001},
	{[]ViolationKind{Missing, TooFewItems}, "spec/containers", spec.MAIN001},
	{[]ViolationKind{Missing, TooFewItems}, "spec/" + containerLists + "/*/startupProbe|readinessProbe|livenessProbe/exec/command", spec.HOOK002},
	{[]ViolationKind{Missing, TooFewItems}, "spec/" + containerLists + "/*/lifecycle/postStart|preStop/exec/command", spec.HOOK002},
	{[]ViolationKind{Missing, TooFewItems}, "spec/" + containerLists + "/*/notifiers/*/action/exec/command", spec.NTF002},

	{[]ViolationKind{UnknownField}, "metadata/labels|annotations/*", spec.ID003},
	{[]ViolationKind{UnknownField}, "spec/selector/matchLabels/*", spec.ID003},
	{[]ViolationKind{UnknownField}, "spec/" + containerLists + "/*/resources/limits|requests/*", spec.RES001},

	{valueKinds, "metadata/name", spec.ID001},
	{valueKinds, "metadata/labels/*", spec.ID003},
	{valueKinds, "spec/selector/matchLabels/*", spec.ID003},
	{valueKinds, "spec/selector/matchExpressions/*/key", spec.ID003},
	{valueKinds, "spec/" + containerLists + "/*/name", spec.ID002},
	{valueKinds, "spec/" + containerLists + "/*/image", spec.IMG001},
	{valueKinds, "spec/" + containerLists + "/*/stopSignal", spec.STOP001},
	{valueKinds, "spec/" + containerLists + "/*/resources/limits|requests/*", spec.RES001},
	{valueKinds, "spec/" + containerLists + "/*/resizePolicy/*/resourceName", spec.RES001},
	{valueKinds, "spec/" + containerLists + "/*/volumeMounts/*/mountPath", spec.VOL002},
	{valueKinds, "spec/" + containerLists + "/*/lifecycle/postStart|preStop/sleep/seconds", spec.HOOK002},
	{valueKinds, "spec/" + containerLists + "/*/startupProbe|readinessProbe|livenessProbe/httpGet|tcpSocket|grpc/port", spec.HOOK014},
	{valueKinds, "spec/" + containerLists + "/*/lifecycle/postStart|preStop/httpGet/port", spec.HOOK014},
	{valueKinds, "spec/" + containerLists + "/*/ports/*/name|containerPort", spec.HOOK020},
	{valueKinds, "spec/" + containerLists + "/*/ports/*/hostPort|hostIP", spec.NET001},
	{valueKinds, "spec/" + containerLists + "/*/notifiers/*/name", spec.NTF001},
	{valueKinds, "spec/" + containerLists + "/*/notifiers/*/action/signal", spec.NTF002},
	{valueKinds, "spec/deferContainers/*/timeoutSeconds|restartPolicy", spec.DEFER001},
	{valueKinds, "spec/restartBackoff/*", spec.RST001},
	{valueKinds, "spec/volumes/*/name", spec.VOL002},
	{valueKinds, "spec/volumes/*/hostPath/path", spec.VOL003},
	{valueKinds, "spec/volumes/*/shared/name", spec.VOL003},
	{valueKinds, "spec/volumes/*/emptyDir/sizeLimit", spec.RES001},
	{valueKinds, "spec/notifier|parallelism", spec.NOTIF001},
	{valueKinds, "spec/pods/*", spec.NOTIF001},

	{[]ViolationKind{NotExactlyOne}, "spec/volumes/*", spec.VOL002},
	{[]ViolationKind{NotExactlyOne}, "spec/" + containerLists + "/*/lifecycle/postStart|preStop", spec.HOOK002},
	{[]ViolationKind{NotExactlyOne}, "spec/" + containerLists + "/*/startupProbe|readinessProbe|livenessProbe", spec.HOOK002},
	{[]ViolationKind{NotExactlyOne}, "spec/" + containerLists + "/*/notifiers/*/action", spec.NTF002},
	{[]ViolationKind{NotExactlyOne}, "spec", spec.NOTIF001},
}

// ruleDuration is the rule of a duration over its maximum (#MaxSeconds in cue/common.cue).
const ruleDuration = spec.MAN012

// durationFields are the fields of the API counted in seconds, the fields MAN-012 bounds.
var durationFields = []string{
	"spec/terminationGracePeriodSeconds|activeDeadlineSeconds",
	"spec/restartBackoff/initialSeconds|maxSeconds|resetAfterSeconds",
	"spec/deferContainers/*/timeoutSeconds",
	"spec/" + containerLists + "/*/startupProbe|readinessProbe|livenessProbe/initialDelaySeconds|periodSeconds|timeoutSeconds",
	"spec/" + containerLists + "/*/lifecycle/postStart|preStop/sleep/seconds",
	"spec/" + containerLists + "/*/notifiers/*/timeoutSeconds",
}

// overMaximum reports whether v is a number above an upper bound: an OutOfRange violation of
// a maximum, or a number too large for a 64-bit float (which decodes as a string, so the
// engines see the wrong type).
func overMaximum(v Violation) bool {
	switch v.Kind {
	case OutOfRange:
		return v.Op == "<=" || v.Op == "<"
	case WrongType:
		return beyondFloat64(v.Value) > 0
	}
	return false
}

var reDecimalNumber = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// beyondFloat64 is +1 (or -1) when v is a string holding a decimal number too large (or too
// negative) for a 64-bit float, such as 1e400: YAML (and so the manifest decoder) reads such a
// plain scalar as a string. It is 0 for anything else.
func beyondFloat64(v any) int {
	s, ok := v.(string)
	if !ok || !reDecimalNumber.MatchString(s) {
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if !errors.Is(err, strconv.ErrRange) || f == 0 {
		return 0
	}
	if f < 0 {
		return -1
	}
	return 1
}

// emptyIsMissing are the required strings whose empty value counts as missing (MAN-003), as
// the semantic checks and Kubernetes report it, rather than as a pattern mismatch.
var emptyIsMissing = []string{
	"metadata/name",
	"spec/" + containerLists + "/*/name|image",
	"spec/" + containerLists + "/*/volumeMounts/*/mountPath",
	"spec/" + containerLists + "/*/notifiers/*/name",
	"spec/volumes/*/name",
	"spec/volumes/*/hostPath/path",
	"spec/volumes/*/shared/name",
	"spec/notifier",
	"spec/selector/matchExpressions/*/key",
}

// isEmptyMissing reports whether v is an empty string where a required, non-empty one belongs.
func isEmptyMissing(v Violation) bool {
	if v.Kind != NoPatternMatch || v.Value != "" {
		return false
	}
	return matchAny(emptyIsMissing, v.Tokens)
}

// RuleFor returns the requirement ID a violation is reported under: MAN-012 for a duration over
// its maximum, a specific rule where a semantic rule covers the same constraint (e.g.
// metadata.name pattern → ID-001), else MAN-003
// for a missing field (or an empty required name, image or path), MAN-004 for an unknown field
// and MAN-002 for everything else.
func RuleFor(v Violation) string {
	if isEmptyMissing(v) {
		return spec.MAN003
	}
	toks := v.Tokens
	if v.Kind == Missing && len(v.Names) > 0 {
		toks = append(toks[:len(toks):len(toks)], v.Names[0])
	}
	if overMaximum(v) && matchAny(durationFields, toks) {
		return ruleDuration
	}
	for _, r := range rules {
		if r.kinds != nil && !containsKind(r.kinds, v.Kind) {
			continue
		}
		if matchPath(r.path, toks) {
			return r.rule
		}
	}
	switch v.Kind {
	case Missing:
		return spec.MAN003
	case UnknownField:
		return spec.MAN004
	}
	return spec.MAN002
}

func containsKind(ks []ViolationKind, k ViolationKind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

func matchAny(patterns []string, toks []string) bool {
	for _, p := range patterns {
		if matchPath(p, toks) {
			return true
		}
	}
	return false
}

func matchPath(pattern string, toks []string) bool {
	parts := strings.Split(pattern, "/")
	if len(parts) != len(toks) {
		return false
	}
	for i, p := range parts {
		if p == "*" {
			continue
		}
		ok := false
		for _, alt := range strings.Split(p, "|") {
			if alt == toks[i] {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
