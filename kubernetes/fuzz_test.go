package kubernetes

import (
	"slices"
	"strings"
	"testing"

	"podspec.dev/podspec/manifest"
)

// FuzzValidate runs the decoder, every check of the profile and the conversion to podspec on
// arbitrary documents: no input may panic, and every finding carries a rule of the profile (a
// KUBE rule, or the one podspec rule the profile applies to Kubernetes objects, ruleMountPath).
func FuzzValidate(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: b, ports: [{containerPort: 80}]}]\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: apps/v1, kind: Deployment, spec: {selector: {}, template: {spec: {restartPolicy: Never}}}}\n"))
	f.Add([]byte("apiVersion: batch/v1\nkind: CronJob\nspec: {schedule: '@every 1h', jobTemplate: {spec: {selector: {matchExpressions: [{key: a, operator: In}]}, template: {spec: {initContainers: [{name: s, restartPolicy: Always}, {name: t}]}}}}}\n"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"Pod","spec":{"volumes":[{"name":"v","emptyDir":{},"hostPath":{"path":"/"}}],"containers":[{"name":"a","lifecycle":{"stopSignal":"SIGINT","preStop":{"sleep":{"seconds":30}}},"volumeMounts":[{"name":"v","mountPath":"/a","subPath":"../b"}]}]}}`))
	f.Add([]byte("apiVersion: v1\nkind: ReplicationController\nmetadata: {name: r}\nspec: {selector: {a: b}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: a, image: b}], volumes: [{name: h, hostPath: {path: /x/}}]}}}\n"))
	f.Add([]byte("apiVersion: v1\nkind: PodTemplate\nmetadata: {name: t}\ntemplate: {spec: {containers: [{name: a, image: b}]}}\n"))
	f.Add([]byte("apiVersion: apps/v1\nkind: DeploymentList\nitems:\n- metadata: {name: d}\n  spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: a, image: b}]}}}\n- kind: Pod\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, _ := manifest.Decode("fuzz.yaml", data, manifest.DefaultLimits())
		for _, d := range docs {
			if Classify(d.APIVersion, d.Kind) != Modelled {
				continue
			}
			for _, e := range Validate(d.Value) {
				if !strings.HasPrefix(e.Rule, "KUBE-") && e.Rule != ruleMountPath {
					t.Fatalf("finding without a rule of the profile: %v (rule %q)", e, e.Rule)
				}
			}
			ToPodspec(d.Value)
		}
	})
}

// ParseVersion either reads a version that prints as 1.N and reads back the same, or refuses
// the input with the list of known versions.
func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"1.29", "v1.37.2", "1.20", "", "1.", "v1.3x", "1.29.6.1", "١.٢٩"} {
		f.Add(s)
	}
	known := strings.Join(Versions(), ", ")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err != nil {
			if !strings.Contains(err.Error(), known) {
				t.Errorf("ParseVersion(%q): %v does not list %s", s, err, known)
			}
			return
		}
		back, err := ParseVersion(v.String())
		if err != nil || back != v || !slices.Contains(Versions(), v.String()) {
			t.Errorf("ParseVersion(%q) = %s, which reads back as %v, %v", s, v, back, err)
		}
	})
}
