package kubernetes

import (
	"fmt"
	"strings"

	"podspec.dev/podspec/validation/field"
)

// source reads one object of a document's value during a conversion, keeping track of the keys
// it used: done reports every other key present as a field the conversion does not carry over
// (KUBE-017), so nothing is dropped silently.
type source struct {
	m    map[string]any
	p    *field.Path
	used map[string]bool
	errs *field.ErrorList
}

func newSource(v any, p *field.Path, errs *field.ErrorList) *source {
	m, _ := v.(map[string]any)
	return &source{m: m, p: p, used: map[string]bool{}, errs: errs}
}

func (s *source) has(k string) bool {
	_, ok := s.m[k]
	return ok
}

func (s *source) str(k string) string {
	s.used[k] = true
	v, _ := s.m[k].(string)
	return v
}

// normalisedPath is the path at k without the trailing slashes Kubernetes accepts and podspec's
// clean paths do not have (a hostPath "/data/" is the directory /data to both), reporting the
// change (KUBE-019).
func (s *source) normalisedPath(k string) string {
	p := s.str(k)
	trimmed := strings.TrimRight(p, "/")
	if trimmed == p || trimmed == "" {
		return p
	}
	*s.errs = append(*s.errs, field.Invalid(ruleNormalised, s.p.Child(k), p,
		fmt.Sprintf("carried over as %q: the same directory, without the trailing slash podspec's clean paths do not have", trimmed)))
	return trimmed
}

func (s *source) strs(k string) []string {
	s.used[k] = true
	a, _ := s.m[k].([]any)
	if a == nil {
		return nil
	}
	out := make([]string, 0, len(a))
	for _, e := range a {
		v, _ := e.(string)
		out = append(out, v)
	}
	return out
}

func (s *source) strMap(k string) map[string]string {
	s.used[k] = true
	m, _ := s.m[k].(map[string]any)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for key, v := range m {
		out[key], _ = v.(string)
	}
	return out
}

// valuePtr returns the value at k when it has type T, or nil.
func valuePtr[T any](s *source, k string) *T {
	s.used[k] = true
	v, ok := s.m[k].(T)
	if !ok {
		return nil
	}
	return &v
}

func (s *source) int64p(k string) *int64 { return valuePtr[int64](s, k) }

func (s *source) int32v(k string) int32 {
	s.used[k] = true
	v, _ := s.m[k].(int64)
	return int32(v)
}

func (s *source) boolp(k string) *bool { return valuePtr[bool](s, k) }

func (s *source) boolv(k string) bool {
	s.used[k] = true
	v, _ := s.m[k].(bool)
	return v
}

// obj returns the nested object at k, or nil when k is not set.
func (s *source) obj(k string) *source {
	s.used[k] = true
	if _, ok := s.m[k].(map[string]any); !ok {
		return nil
	}
	return newSource(s.m[k], s.p.Child(k), s.errs)
}

// list returns the objects of the array at k.
func (s *source) list(k string) []*source {
	s.used[k] = true
	a, _ := s.m[k].([]any)
	out := make([]*source, 0, len(a))
	for i, e := range a {
		out = append(out, newSource(e, s.p.Child(k).Index(i), s.errs))
	}
	return out
}

// skip marks keys as handled without carrying them (their meaning is carried some other way).
func (s *source) skip(keys ...string) {
	for _, k := range keys {
		s.used[k] = true
	}
}

// drop reports a key that is present but not carried over, with why.
func (s *source) drop(k, why string) {
	s.used[k] = true
	if _, ok := s.m[k]; !ok {
		return
	}
	*s.errs = append(*s.errs, field.Forbidden(ruleNotCarried, s.p.Child(k), why).AtKey())
}

// done reports every key of the object that was not used.
func (s *source) done(what string) {
	s.doneWhy(func(k string) string { return fmt.Sprintf("podspec's %s has no field %s; not carried over", what, k) })
}

// doneWhy is done with the reason for a key without a known one given by why.
func (s *source) doneWhy(why func(key string) string) {
	if s == nil {
		return
	}
	for _, k := range sortedKeys(s.m) {
		if s.used[k] {
			continue
		}
		reason := notModelled(k)
		if reason == "" {
			reason = why(k)
		}
		*s.errs = append(*s.errs, field.Forbidden(ruleNotCarried, s.p.Child(k), reason).AtKey())
	}
}

// notModelled says why a common Kubernetes field has no podspec counterpart, or "".
func notModelled(key string) string {
	switch key {
	case "envFrom":
		return "podspec has no ConfigMaps or Secrets to take environment variables from; envFrom is not carried over"
	case "serviceAccountName", "serviceAccount", "automountServiceAccountToken":
		return "podspec has no API server and no service accounts; not carried over"
	case "nodeSelector", "affinity", "tolerations", "topologySpreadConstraints", "nodeName", "priorityClassName", "priority", "schedulerName":
		return "podspec runs a pod on the machine it is given to; scheduling fields are not carried over"
	case "dnsPolicy", "dnsConfig":
		return "podspec pods have no cluster DNS; not carried over"
	case "hostNetwork":
		return "podspec pods always have a network namespace of their own; not carried over"
	case "hostPID":
		return "podspec pods always have their own PID namespaces; not carried over"
	case "hostIPC":
		return "podspec pods always have an IPC namespace of their own; not carried over"
	case "status":
		return "podspec converts the spec; a status is the runtime's, not carried over"
	case "terminationMessagePath", "terminationMessagePolicy":
		return "podspec has no termination messages; not carried over"
	case "namespace":
		return "podspec has no namespaces; not carried over"
	case "ownerReferences":
		return "podspec objects have no owners; not carried over"
	case "creationTimestamp", "uid", "resourceVersion", "managedFields", "selfLink":
		return "server-set metadata is not carried over"
	}
	return ""
}
