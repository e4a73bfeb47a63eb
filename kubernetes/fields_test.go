package kubernetes

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/validation/field"
)

// The converter's field table: what FromPodspec does with each field of a podspec Pod. The
// tests below hold it to the API types (every field of api/v1alpha1 has a row, every row is a
// field), to this package's mirror of the Kubernetes API (every target is a Kubernetes field)
// and to FromPodspec itself on every valid pod of the corpus (a carried value is in the
// Kubernetes Pod, a lost one is reported as KUBE-018). api/v1alpha1's shape test holds the
// same API types to cue/ and the JSON Schema, so a field added to the manifest fails here
// until the converter says what becomes of it (and docs/kubernetes.md's table with it).

// fieldRow is what the converter does with one podspec field.
type fieldRow struct {
	// to is the Kubernetes field that carries the value ("[]" where the podspec path has one);
	// empty when the field is not carried.
	to string
	// lost: the field has no Kubernetes form and FromPodspec reports it (KUBE-018), unless its
	// value is one of unless (what Kubernetes does anyway).
	lost   bool
	unless []string
	// dropsElement: when the field is set, the list element that holds it is not carried at
	// all (a shared volume).
	dropsElement bool
}

func carried(to string) fieldRow { return fieldRow{to: to} }

var (
	lost = fieldRow{lost: true}
	// written: the converter writes the Kubernetes value itself (apiVersion v1, kind Pod).
	written = fieldRow{}
)

// containerFields is the table of a container, for init and main containers alike (a path
// relative to the container; the target relative to the Kubernetes container).
var containerFields = map[string]fieldRow{
	"name": carried("name"), "image": carried("image"), "imagePullPolicy": carried("imagePullPolicy"), "command": carried("command"),
	"args": carried("args"), "workingDir": carried("workingDir"),
	"env[].name": carried("env[].name"), "env[].value": carried("env[].value"),
	"restartPolicy":                            carried("restartPolicy"),
	"stopSignal":                               carried("lifecycle.stopSignal"),
	"resources.limits":                         carried("resources.limits"),
	"resources.requests":                       carried("resources.requests"),
	"resizePolicy[].resourceName":              carried("resizePolicy[].resourceName"),
	"resizePolicy[].restartPolicy":             carried("resizePolicy[].restartPolicy"),
	"volumeMounts[].name":                      carried("volumeMounts[].name"),
	"volumeMounts[].mountPath":                 carried("volumeMounts[].mountPath"),
	"volumeMounts[].readOnly":                  carried("volumeMounts[].readOnly"),
	"lifecycle.postStart.exec.command":         carried("lifecycle.postStart.exec.command"),
	"lifecycle.postStart.sleep.seconds":        carried("lifecycle.postStart.sleep.seconds"),
	"lifecycle.preStop.exec.command":           carried("lifecycle.preStop.exec.command"),
	"lifecycle.preStop.sleep.seconds":          carried("lifecycle.preStop.sleep.seconds"),
	"notifiers":                                lost,
	"dependsOn":                                lost,
	"securityContext.runAsUser":                carried("securityContext.runAsUser"),
	"securityContext.runAsGroup":               carried("securityContext.runAsGroup"),
	"securityContext.runAsNonRoot":             carried("securityContext.runAsNonRoot"),
	"securityContext.readOnlyRootFilesystem":   carried("securityContext.readOnlyRootFilesystem"),
	"securityContext.allowPrivilegeEscalation": carried("securityContext.allowPrivilegeEscalation"),
	"securityContext.capabilities.add":         carried("securityContext.capabilities.add"),
	"securityContext.capabilities.drop":        carried("securityContext.capabilities.drop"),
	"ports[].name":                             carried("ports[].name"),
	"ports[].containerPort":                    carried("ports[].containerPort"),
	"ports[].protocol":                         carried("ports[].protocol"),
	"ports[].hostPort":                         carried("ports[].hostPort"),
	"ports[].hostIP":                           carried("ports[].hostIP"),
}

// probeFields is the table of a probe, for the three probes alike.
var probeFields = append([]string{"exec.command", "tcpSocket.port", "tcpSocket.host", "grpc.port", "grpc.service",
	"initialDelaySeconds", "periodSeconds", "timeoutSeconds", "successThreshold", "failureThreshold"}, httpGetFields...)

// httpGetFields is the table of an httpGet handler, for probes and hooks alike.
var httpGetFields = []string{"httpGet.path", "httpGet.port", "httpGet.host", "httpGet.scheme", "httpGet.httpHeaders[].name", "httpGet.httpHeaders[].value"}

// podFields is the converter's field table, by podspec path.
func podFields() map[string]fieldRow {
	rows := map[string]fieldRow{
		"apiVersion": written, "kind": written,
		"metadata.name": carried("metadata.name"), "metadata.labels": carried("metadata.labels"),
		"metadata.annotations": carried("metadata.annotations"), "metadata.generation": lost,
		"spec.exitPolicy":                    {lost: true, unless: []string{string(v1alpha1.ExitPolicyAll)}},
		"spec.restartPolicy":                 carried("spec.restartPolicy"),
		"spec.restartBackoff":                lost,
		"spec.terminationGracePeriodSeconds": carried("spec.terminationGracePeriodSeconds"),
		"spec.activeDeadlineSeconds":         carried("spec.activeDeadlineSeconds"),
		"spec.volumes[].name":                carried("spec.volumes[].name"),
		"spec.volumes[].emptyDir.medium":     carried("spec.volumes[].emptyDir.medium"),
		"spec.volumes[].emptyDir.sizeLimit":  carried("spec.volumes[].emptyDir.sizeLimit"),
		"spec.volumes[].hostPath.path":       carried("spec.volumes[].hostPath.path"),
		"spec.volumes[].shared":              {lost: true, dropsElement: true},
		"spec.deferContainers":               lost,
		"status":                             lost,
	}
	for _, list := range []string{"spec.initContainers[]", "spec.containers[]"} {
		for k, r := range containerFields {
			if r.to != "" {
				r.to = list + "." + r.to
			}
			rows[list+"."+k] = r
		}
		for _, probe := range []string{"startupProbe", "readinessProbe", "livenessProbe"} {
			for _, k := range probeFields {
				rows[list+"."+probe+"."+k] = carried(list + "." + probe + "." + k)
			}
		}
		for _, hook := range []string{"lifecycle.postStart", "lifecycle.preStop"} {
			for _, k := range httpGetFields {
				rows[list+"."+hook+"."+k] = carried(list + "." + hook + "." + k)
			}
		}
	}
	return rows
}

// tableLeafTypes are the types the table gives one row, though they are structs.
var tableLeafTypes = []reflect.Type{reflect.TypeFor[time.Time](), reflect.TypeFor[v1alpha1.Quantity](), reflect.TypeFor[v1alpha1.PortRef]()}

// jsonFieldsOf lists a struct type's JSON fields (embedded structs' promoted) with their types.
func jsonFieldsOf(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			maps.Copy(out, jsonFieldsOf(f.Type))
			continue
		}
		if f.IsExported() && name != "-" {
			out[name] = f.Type
		}
	}
	return out
}

// typePaths walks a type and calls leaf with the table path of each field the table stops at:
// a row's path, or a field that has no row and nothing below it.
func typePaths(t reflect.Type, path string, rows map[string]fieldRow, leaf func(path string, t reflect.Type)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if _, ok := rows[path]; ok || slices.Contains(tableLeafTypes, t) {
		leaf(path, t)
		return
	}
	switch {
	case t.Kind() == reflect.Struct:
		for name, ft := range jsonFieldsOf(t) {
			p := name
			if path != "" {
				p = path + "." + name
			}
			typePaths(ft, p, rows, leaf)
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		typePaths(t.Elem(), path+"[]", rows, leaf)
	default:
		leaf(path, t)
	}
}

func TestEveryPodspecFieldHasARowInTheConvertersTable(t *testing.T) {
	rows := podFields()
	reached := map[string]bool{}
	typePaths(reflect.TypeFor[v1alpha1.Pod](), "", rows, func(path string, _ reflect.Type) {
		reached[path] = true
		if _, ok := rows[path]; !ok {
			t.Errorf("podspec field %s has no row in the converter's field table (kubernetes/fields_test.go): carry it in FromPodspec (kubernetes/frompodspec.go) or report it as KUBE-018, and say which in docs/kubernetes.md", path)
		}
	})
	for path := range rows {
		if !reached[path] {
			t.Errorf("the converter's field table has a row for %s, which is no field of api/v1alpha1's Pod", path)
		}
	}
}

// kubernetesHasPath reports whether the mirror's Pod type has a field at a table path.
func kubernetesHasPath(path string) bool {
	t := reflect.TypeFor[Pod]()
	for _, tok := range strings.Split(path, ".") {
		name, isList := strings.CutSuffix(tok, "[]")
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return false
		}
		ft, ok := jsonFieldsOf(t)[name]
		if !ok {
			return false
		}
		t = ft
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if isList {
			if t.Kind() != reflect.Slice {
				return false
			}
			t = t.Elem()
		}
	}
	return true
}

func TestTheConvertersTableNamesKubernetesFields(t *testing.T) {
	for path, r := range podFields() {
		if r.to == "" {
			continue
		}
		if !kubernetesHasPath(r.to) {
			t.Errorf("%s is carried to %s, which is no field of the Kubernetes Pod (zz_generated_api.go)", path, r.to)
		}
		if strings.Count(path, "[]") != strings.Count(r.to, "[]") {
			t.Errorf("%s is carried to %s, a path through other lists", path, r.to)
		}
	}
}

// valuesAt returns every value a table path (lists as "[]") names in a JSON value.
func valuesAt(v any, path string) []any {
	vs := []any{v}
	for _, tok := range strings.Split(path, ".") {
		name, isList := strings.CutSuffix(tok, "[]")
		var next []any
		for _, v := range vs {
			m, _ := v.(map[string]any)
			x, ok := m[name]
			if !ok {
				continue
			}
			if !isList {
				next = append(next, x)
				continue
			}
			l, _ := x.([]any)
			next = append(next, l...)
		}
		vs = next
	}
	return vs
}

func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case float64:
		return x == 0
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// reported reports whether a KUBE-018 finding is at path, above it or below it.
func reported(errs field.ErrorList, path string) bool {
	for _, e := range errs {
		f := e.Field.String()
		if f == path || strings.HasPrefix(path, f+".") || strings.HasPrefix(path, f+"[") || strings.HasPrefix(f, path+".") || strings.HasPrefix(f, path+"[") {
			return true
		}
	}
	return false
}

// TestFromPodspecDoesWhatItsTableSays converts every valid podspec Pod of the corpus and the
// examples: each value set in the podspec Pod is, as the table says, found at its Kubernetes
// field (in some element of the same lists: a dropped element shifts the others) or reported
// as KUBE-018 at its path.
func TestFromPodspecDoesWhatItsTableSays(t *testing.T) {
	rows := podFields()
	checked := map[string]bool{}
	for _, vp := range validPodspecPods(t) {
		f, p := vp.file, vp.pod
		kp, errs := FromPodspec(p)
		in, out := plainJSON(t, p), plainJSON(t, kp)
		var walk func(v any, at, path string)
		walk = func(v any, at, path string) {
			if isZero(v) {
				return
			}
			r, ok := rows[path]
			if !ok {
				switch x := v.(type) {
				case map[string]any:
					for _, k := range slices.Sorted(maps.Keys(x)) {
						walk(x[k], strings.TrimPrefix(at+"."+k, "."), strings.TrimPrefix(path+"."+k, "."))
					}
				case []any:
				elements:
					for i, e := range x {
						at := at + "[" + strconv.Itoa(i) + "]"
						m, _ := e.(map[string]any)
						for _, k := range slices.Sorted(maps.Keys(m)) {
							if rows[path+"[]."+k].dropsElement && !isZero(m[k]) {
								checked[path+"[]."+k] = true
								if !reported(errs, at+"."+k) {
									t.Errorf("%s: %s.%s is set, so %s is not carried to Kubernetes, and FromPodspec does not report it (KUBE-018)", f, at, k, at)
								}
								continue elements
							}
						}
						walk(e, at, path+"[]")
					}
				default:
					t.Errorf("%s: %s has no row in the converter's field table", f, at)
				}
				return
			}
			checked[path] = true
			switch {
			case r.lost:
				if s, ok := v.(string); ok && slices.Contains(r.unless, s) {
					return
				}
				if !reported(errs, at) {
					t.Errorf("%s: %s = %v is not carried to Kubernetes, and FromPodspec does not report it (KUBE-018)", f, at, v)
				}
			case r.to != "":
				if m, ok := v.(map[string]any); ok {
					for _, k := range slices.Sorted(maps.Keys(m)) {
						if !carriedIn(valuesAt(out, r.to), k, m[k]) && !reported(errs, at+"["+k+"]") {
							t.Errorf("%s: %s[%s] = %v is neither at %s in the Kubernetes Pod nor reported", f, at, k, m[k], r.to)
						}
					}
					return
				}
				if !slices.ContainsFunc(valuesAt(out, r.to), func(x any) bool { return reflect.DeepEqual(x, v) }) && !reported(errs, at) {
					t.Errorf("%s: %s = %v is neither at %s in the Kubernetes Pod nor reported", f, at, v, r.to)
				}
			}
		}
		walk(in, "", "")
	}
	if len(checked) < 20 {
		t.Errorf("the corpus exercised only %d rows of the table: %v", len(checked), slices.Sorted(maps.Keys(checked)))
	}
}

// carriedIn reports whether one of the maps has key k with value v.
func carriedIn(maps []any, k string, v any) bool {
	for _, m := range maps {
		if x, ok := m.(map[string]any)[k]; ok && reflect.DeepEqual(x, v) {
			return true
		}
	}
	return false
}

// plainJSON is v as encoding/json writes and reads it back (numbers as float64).
func plainJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
