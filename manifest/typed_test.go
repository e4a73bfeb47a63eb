package manifest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
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
