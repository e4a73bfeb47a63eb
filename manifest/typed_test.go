package manifest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
)

// The direct typed decoder must give exactly what encoding/json gives for the same JSON text.
func TestTypedDecodeAgreesWithEncodingJSON(t *testing.T) {
	var files []string
	for _, dir := range []string{"../testdata/valid", "../examples"} {
		m, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		files = append(files, m...)
	}
	inline := `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: x, labels: {a: b}}
spec:
  terminationGracePeriodSeconds: 30.0
  restartBackoff: {initialSeconds: 0.5, factor: 2}
  containers:
    - name: c
      image: oci:x
      restartPolicy: null
      resources: {limits: {cpu: 500m, memory: 1Gi, pids: 64}}
      readinessProbe: {exec: {command: [a, b]}, periodSeconds: 3}
status:
  phase: Running
  startedAt: "2026-11-30T10:00:00Z"
`
	cases := map[string][]byte{"inline": []byte(inline)}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases[f] = data
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			docs, _ := Decode(name, data, DefaultLimits())
			for _, d := range docs {
				b, err := json.Marshal(d.Value)
				if err != nil {
					t.Fatal(err)
				}
				var want, got any
				switch d.Kind {
				case v1alpha1.KindPod:
					want, got = new(v1alpha1.Pod), new(v1alpha1.Pod)
				case v1alpha1.KindNotification:
					want, got = new(v1alpha1.Notification), new(v1alpha1.Notification)
				default:
					continue
				}
				if err := json.NewDecoder(bytes.NewReader(b)).Decode(want); err != nil {
					t.Fatalf("encoding/json: %v", err)
				}
				if err := d.decodeInto(got); err != nil {
					t.Fatalf("direct: %v", err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("document %d differs:\n got %+v\nwant %+v", d.Index, got, want)
				}
			}
		})
	}
}

func TestTypedDecodeRejectsWrongTypes(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"a number for a string", "metadata: {name: 7}", "metadata.name"},
		{"a fraction for an integer", "spec: {terminationGracePeriodSeconds: 1.5}", "spec.terminationGracePeriodSeconds"},
		{"a string for a list", "spec: {containers: abc}", "spec.containers"},
		{"a list for an object", "spec: [1]", "spec"},
		{"a boolean label value", "metadata: {labels: {a: yes}}", "metadata.labels.a"},
		{"an integer too big for int32", "spec: {containers: [{name: a, readinessProbe: {periodSeconds: 99999999999}}]}", "periodSeconds"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			docs, _ := Decode("f.yaml", []byte(tc.in), DefaultLimits())
			_, err := docs[0].Pod()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}

func TestPartialDecodeKeepsWhatFitsAndNamesWhatDoesNot(t *testing.T) {
	in := `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: web, generation: 99999999999999999999}
spec:
  terminationGracePeriodSeconds: 9223372036854775808
  activeDeadlineSeconds: -9223372036854775809
  restartBackoff: {initialSeconds: 1e400, factor: 3}
  containers:
    - name: app
      image: 7
      command: [run, 1]
      readinessProbe: {exec: {command: [a]}, periodSeconds: 2147483648, failureThreshold: 4}
      lifecycle: {preStop: {sleep: {seconds: 9223372036854775807}}}
    - name: b
      image: oci:b
`
	docs, fs := Decode("f.yaml", []byte(in), DefaultLimits())
	if len(docs) != 1 || len(fs) != 0 {
		t.Fatalf("docs %d findings %v", len(docs), fs)
	}
	if _, err := docs[0].Pod(); err == nil {
		t.Fatal("the strict decode accepted values that do not fit")
	}
	p, bad := docs[0].PartialPod()
	type want struct{ path, want, op, limit string }
	var got []want
	for _, b := range bad {
		got = append(got, want{strings.Join(b.Tokens, "/"), b.Want, b.Op, b.Limit})
	}
	slices.SortFunc(got, func(a, b want) int { return strings.Compare(a.path, b.path) })
	wants := []want{
		{"metadata/generation", "integer", "<=", "9223372036854775807"},
		{"spec/activeDeadlineSeconds", "integer", ">=", "-9223372036854775808"},
		{"spec/containers/0/command/1", "string", "", ""},
		{"spec/containers/0/image", "string", "", ""},
		{"spec/containers/0/readinessProbe/periodSeconds", "integer", "<=", "2147483647"},
		{"spec/restartBackoff/initialSeconds", "number", "", ""},
		{"spec/terminationGracePeriodSeconds", "integer", "<=", "9223372036854775807"},
	}
	if !slices.Equal(got, wants) {
		t.Errorf("decode errors\n got %v\nwant %v", got, wants)
	}
	// What fits is kept; what does not is unset (nil), never a made-up zero or a wrapped value.
	s := p.Spec
	if s.TerminationGracePeriodSeconds != nil || s.ActiveDeadlineSeconds != nil || s.RestartBackoff.InitialSeconds != nil {
		t.Errorf("fields that do not fit were set: %v %v %v", s.TerminationGracePeriodSeconds, s.ActiveDeadlineSeconds, s.RestartBackoff.InitialSeconds)
	}
	c := s.Containers
	if p.Metadata.Name != "web" || *s.RestartBackoff.Factor != 3 || len(c) != 2 || c[0].Name != "app" || c[1].Image != "oci:b" ||
		c[0].ReadinessProbe.FailureThreshold != 4 || c[0].Lifecycle.PreStop.Sleep.Seconds != 9223372036854775807 ||
		!slices.Equal(c[0].Command, []string{"run", ""}) {
		t.Errorf("values that fit were lost: %+v", p)
	}
}
