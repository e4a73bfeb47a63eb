package schema

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

func decodeYAML(t testing.TB, doc string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("decode test document: %v", err)
	}
	return v
}

func TestValidateReportsRulesAtPaths(t *testing.T) {
	const head = "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: web}\n"
	for _, tc := range []struct {
		name string
		doc  string
		want []string
	}{
		{"a minimal pod is valid", head + "spec: {containers: [{name: a, image: \"oci:x\"}]}", nil},
		{"an enum value outside the enum is MAN-002", head + "spec: {exitPolicy: Some, containers: [{name: a, image: \"oci:x\"}]}",
			[]string{"MAN-002 spec.exitPolicy must be one of All, Any, AnyFailure"}},
		{"a missing image is MAN-003 on the container", head + "spec: {containers: [{name: a}]}",
			[]string{`MAN-003 spec.containers[0] missing field "image"`}},
		{"an unknown field is MAN-004 on its key", head + "spec: {containers: [{name: a, image: \"oci:x\", stdinOnce: true}]}",
			[]string{`MAN-004 spec.containers[0].stdinOnce unknown field "stdinOnce"`}},
		{"a string for a number is a type error", head + "spec: {activeDeadlineSeconds: soon, containers: [{name: a, image: \"oci:x\"}]}",
			[]string{"MAN-002 spec.activeDeadlineSeconds expected integer, got string"}},
		{"a volume with two sources is VOL-002", head + "spec: {volumes: [{name: v, emptyDir: {}, hostPath: {path: /x}}], containers: [{name: a, image: \"oci:x\"}]}",
			[]string{"VOL-002 spec.volumes[0].hostPath emptyDir and hostPath are set"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range Validate("Pod", decodeYAML(t, tc.doc)) {
				got = append(got, e.Rule+" "+e.Field.String()+" "+e.Detail)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], strings.SplitN(tc.want[i], " ", 3)[0]+" "+strings.SplitN(tc.want[i], " ", 3)[1]) ||
					!strings.Contains(got[i], strings.SplitN(tc.want[i], " ", 3)[2]) {
					t.Errorf("error %d: got %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestJSONReturnsASelfContainedSchemaPerKind(t *testing.T) {
	for _, kind := range Kinds() {
		b := JSON(kind)
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", kind, err)
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema is %v", kind, doc["$schema"])
		}
		if id, _ := doc["$id"].(string); !strings.HasPrefix(id, "https://podspec.dev/schemas/v1alpha1/") {
			t.Errorf("%s: $id is %v", kind, doc["$id"])
		}
		walk(doc, func(m map[string]any) {
			if ref, ok := m["$ref"].(string); ok && !strings.HasPrefix(ref, "#") {
				t.Errorf("%s: $ref %q leaves the document", kind, ref)
			}
		})
	}
	if JSON("Deployment") != nil {
		t.Error("JSON returned a schema for an unknown kind")
	}
}

// walk calls f on every object of a decoded JSON document.
func walk(v any, f func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(x)
		for _, e := range x {
			walk(e, f)
		}
	case []any:
		for _, e := range x {
			walk(e, f)
		}
	}
}

// openAtTop are the kinds whose top-level object is open on purpose: the event object of the
// runtime interface, to which section 2 of docs/runtime-interface.md lets a runtime add fields
// (its nested objects stay closed).
var openAtTop = map[string]bool{"Event": true}

func TestEveryObjectSchemaIsClosed(t *testing.T) {
	for _, kind := range Kinds() {
		var doc map[string]any
		if err := json.Unmarshal(JSON(kind), &doc); err != nil {
			t.Fatal(err)
		}
		if openAtTop[kind] && doc["additionalProperties"] != true {
			t.Errorf("%s: the top-level object must allow a runtime's own fields", kind)
		}
		walk(doc, func(m map[string]any) {
			if openAtTop[kind] && m["$schema"] != nil {
				return // the top level; walk still visits its properties and $defs
			}
			props, ok := m["properties"].(map[string]any)
			if !ok {
				return
			}
			presenceOnly := true // the members of oneOf and not only test for presence
			for _, p := range props {
				if p != true {
					presenceOnly = false
				}
			}
			if !presenceOnly && m["additionalProperties"] != false {
				t.Errorf("%s: object schema with properties %v is not closed", kind, slices.Sorted(mapKeys(props)))
			}
		})
	}
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestEveryPatternHasADescription(t *testing.T) {
	for _, kind := range Kinds() {
		var doc map[string]any
		if err := json.Unmarshal(JSON(kind), &doc); err != nil {
			t.Fatal(err)
		}
		walk(doc, func(m map[string]any) {
			if re, ok := m["pattern"].(string); ok {
				if _, ok := patternWords[re]; !ok {
					t.Errorf("%s: pattern %q has no description in rules.go", kind, re)
				}
			}
			if pp, ok := m["patternProperties"].(map[string]any); ok {
				for re := range pp {
					if _, ok := patternWords[re]; !ok {
						t.Errorf("%s: pattern %q has no description in rules.go", kind, re)
					}
				}
			}
		})
	}
}

func TestValidateIsSafeForConcurrentUse(t *testing.T) {
	good := decodeYAML(t, realisticPod(t))
	bad := decodeYAML(t, "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: Web}\nspec: {containers: []}")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				if errs := Validate("Pod", good); len(errs) != 0 {
					t.Errorf("the realistic pod is invalid: %v", errs)
					return
				}
				if errs := Validate("Pod", bad); len(errs) != 2 {
					t.Errorf("got %d errors for the bad pod, want 2: %v", len(errs), errs)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestUnknownKindIsMAN001(t *testing.T) {
	errs := Validate("Deployment", map[string]any{})
	if len(errs) != 1 || errs[0].Rule != "MAN-001" || errs[0].Field.String() != "kind" {
		t.Fatalf("got %v", errs)
	}
}

// realisticPod is the API sketch's pod from the corpus: an init container, a sidecar, two
// main containers with probes, hooks, notifiers and dependsOn, volumes and two defers.
func realisticPod(t testing.TB) string {
	return corpusFile(t, "../testdata/valid/api-sketch-pod.yaml")
}

func corpusFile(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("read realistic pod: %v", err)
	}
	return string(b)
}

func BenchmarkValidate(b *testing.B) {
	v := decodeYAML(b, realisticPod(b))
	if errs := Validate("Pod", v); len(errs) != 0 {
		b.Fatalf("the realistic pod is invalid: %v", errs)
	}
	b.ReportAllocs()
	start := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		Validate("Pod", v)
	}
	reportCPU(b, start)
}

// BenchmarkValidateMinimal validates the corpus' minimal pod (one container), the size of the
// pods the research's 75 µs per document was measured on.
func BenchmarkValidateMinimal(b *testing.B) {
	v := decodeYAML(b, corpusFile(b, "../testdata/valid/minimal-pod.yaml"))
	if errs := Validate("Pod", v); len(errs) != 0 {
		b.Fatalf("the minimal pod is invalid: %v", errs)
	}
	b.ReportAllocs()
	start := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		Validate("Pod", v)
	}
	reportCPU(b, start)
}

// BenchmarkValidateLarge validates the corpus' every-field pod (104 lines, 3 init, 3 main and
// 2 defer containers).
func BenchmarkValidateLarge(b *testing.B) {
	v := decodeYAML(b, corpusFile(b, "../testdata/valid/every-field-pod.yaml"))
	if errs := Validate("Pod", v); len(errs) != 0 {
		b.Fatalf("the every-field pod is invalid: %v", errs)
	}
	b.ReportAllocs()
	start := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		Validate("Pod", v)
	}
	reportCPU(b, start)
}

func BenchmarkValidateInvalid(b *testing.B) {
	v := decodeYAML(b, strings.Replace(realisticPod(b), "restartPolicy: OnFailure", "restartPolicy: Sometimes", 1))
	if errs := Validate("Pod", v); len(errs) != 1 {
		b.Fatalf("got %v, want one error", errs)
	}
	b.ReportAllocs()
	start := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		Validate("Pod", v)
	}
	reportCPU(b, start)
}

// cpuTime is the CPU time (user and system) the process has used. The benchmarks report CPU
// time per operation besides wall time, which shared, loaded machines inflate.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
