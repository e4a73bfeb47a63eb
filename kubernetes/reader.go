package kubernetes

import (
	"fmt"

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

func (s *source) int64p(k string) *int64 {
	s.used[k] = true
	v, ok := s.m[k].(int64)
	if !ok {
		return nil
	}
	return &v
}

func (s *source) int32v(k string) int32 {
	s.used[k] = true
	v, _ := s.m[k].(int64)
	return int32(v)
}

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
		reason := notModelled[k]
		if reason == "" {
			reason = why(k)
		}
		*s.errs = append(*s.errs, field.Forbidden(ruleNotCarried, s.p.Child(k), reason).AtKey())
	}
}

// notModelled says why common Kubernetes fields have no podspec counterpart.
var notModelled = map[string]string{
	"ports":                        "podspec pods have a loopback-only network namespace; container ports are not published, so they are not carried over",
	"securityContext":              "podspec runs every container with its own security defaults (docs/spec/runtime.md, SEC); securityContext is not carried over",
	"imagePullPolicy":              "podspec runs images from OCI layouts on disk and never pulls; imagePullPolicy is not carried over",
	"envFrom":                      "podspec has no ConfigMaps or Secrets to take environment variables from; envFrom is not carried over",
	"serviceAccountName":           "podspec has no API server and no service accounts; not carried over",
	"serviceAccount":               "podspec has no API server and no service accounts; not carried over",
	"automountServiceAccountToken": "podspec has no API server and no service accounts; not carried over",
	"nodeSelector":                 "podspec runs a pod on the machine it is given to; scheduling fields are not carried over",
	"affinity":                     "podspec runs a pod on the machine it is given to; scheduling fields are not carried over",
	"tolerations":                  "podspec runs a pod on the machine it is given to; scheduling fields are not carried over",
	"topologySpreadConstraints":    "podspec runs a pod on the machine it is given to; scheduling fields are not carried over",
	"nodeName":                     "podspec runs a pod on the machine it is given to; scheduling fields are not carried over",
	"priorityClassName":            "podspec runs a pod on the machine it is given to; scheduling fields are not carried over",
	"priority":                     "podspec runs a pod on the machine it is given to; scheduling fields are not carried over",
	"schedulerName":                "podspec runs a pod on the machine it is given to; scheduling fields are not carried over",
	"dnsPolicy":                    "podspec pods have no cluster DNS; not carried over",
	"dnsConfig":                    "podspec pods have no cluster DNS; not carried over",
	"hostNetwork":                  "podspec pods always have a network namespace of their own; not carried over",
	"hostPID":                      "podspec pods always have their own PID namespaces; not carried over",
	"hostIPC":                      "podspec pods always have an IPC namespace of their own; not carried over",
	"status":                       "podspec converts the spec; a status is the runtime's, not carried over",
	"terminationMessagePath":       "podspec has no termination messages; not carried over",
	"terminationMessagePolicy":     "podspec has no termination messages; not carried over",
	"namespace":                    "podspec has no namespaces; not carried over",
	"ownerReferences":              "podspec objects have no owners; not carried over",
	"creationTimestamp":            "server-set metadata is not carried over",
	"uid":                          "server-set metadata is not carried over",
	"resourceVersion":              "server-set metadata is not carried over",
	"managedFields":                "server-set metadata is not carried over",
	"selfLink":                     "server-set metadata is not carried over",
}
