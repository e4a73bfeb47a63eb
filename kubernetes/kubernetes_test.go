package kubernetes

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		apiVersion, kind string
		want             Kind
	}{
		{"v1", "Pod", Modelled},
		{"v1", "List", Modelled},
		{"apps/v1", "Deployment", Modelled},
		{"apps/v1beta2", "Deployment", Modelled}, // reported as KUBE-001
		{"extensions/v1beta1", "Deployment", Modelled},
		{"batch/v1", "CronJob", Modelled},
		{"v1", "Service", OtherKubernetes},
		{"autoscaling/v2", "HorizontalPodAutoscaler", OtherKubernetes},
		{"cert-manager.io/v1", "Certificate", OtherKubernetes},
		{"podspec.dev/v1alpha1", "Pod", NotKubernetes},
		{"podspec.dev/v1", "Pod", NotKubernetes},
		{"v1alpha1", "Pod", NotKubernetes},
		{"", "Pod", NotKubernetes},
		{"frobnicator/v1", "Pod", NotKubernetes},
	}
	for _, c := range cases {
		if got := Classify(c.apiVersion, c.kind); got != c.want {
			t.Errorf("Classify(%q, %q) = %d, want %d", c.apiVersion, c.kind, got, c.want)
		}
	}
}

// The mirror is what internal/apigen writes from the k8s.io/api in go.mod.
func TestGeneratedMirrorIsUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	requireGenerated(t, "zz_generated_api.go", nil, "./internal/apigen")
}

// requireGenerated runs the generator (go run args... -o FILE) with the extra environment env
// and requires its output to be the committed file.
func requireGenerated(t *testing.T, file string, env []string, args ...string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "zz.go")
	cmd := exec.Command("go", append(append([]string{"run"}, args...), "-o", out)...)
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", args[0], err, b)
	}
	want, _ := os.ReadFile(out)
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what %s writes: run `go generate ./kubernetes/`", file, args[0])
	}
}

func TestKubernetesVersionIsTheAPIModules(t *testing.T) {
	if !strings.HasPrefix(APIModuleVersion, "v0.") || Newest().String() != "1."+strings.Split(APIModuleVersion, ".")[1] {
		t.Errorf("APIModuleVersion %s, the newest version of the tables %s", APIModuleVersion, Newest())
	}
}

// corpusDocs decodes every document of the Kubernetes corpus directory dir.
func corpusDocs(t *testing.T, dir string) map[string][]*manifest.Document {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "kubernetes", dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in %s: %v", dir, err)
	}
	out := map[string][]*manifest.Document{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs, _ := manifest.Decode(f, data, manifest.DefaultLimits())
		out[f] = docs
	}
	return out
}

// strictInto decodes v into the k8s.io/api type of its kind, refusing unknown fields, as the
// API server's strict field validation does.
func strictInto(v any) error {
	m := v.(map[string]any)
	var target any
	switch m["kind"] {
	case "Pod":
		target = new(corev1.Pod)
	case "List":
		target = new(corev1.List)
	case "Deployment":
		target = new(appsv1.Deployment)
	case "StatefulSet":
		target = new(appsv1.StatefulSet)
	case "DaemonSet":
		target = new(appsv1.DaemonSet)
	case "ReplicaSet":
		target = new(appsv1.ReplicaSet)
	case "Job":
		target = new(batchv1.Job)
	case "CronJob":
		target = new(batchv1.CronJob)
	case "ReplicationController":
		target = new(corev1.ReplicationController)
	case "PodTemplate":
		target = new(corev1.PodTemplate)
	default:
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(target)
}

// The mirror reads what k8s.io/api reads: the valid corpus decodes strictly into both, and every
// document the mirror finds an unknown field or a wrong type in, k8s.io/api refuses too.
func TestMirrorAgreesWithTheAPITypes(t *testing.T) {
	for _, dir := range []string{"valid", "invalid"} {
		for file, docs := range corpusDocs(t, dir) {
			for _, d := range docs {
				if Classify(d.APIVersion, d.Kind) != Modelled {
					continue
				}
				_, errs := Decode(d.Value, Newest())
				var typeErrs field.ErrorList
				for _, e := range errs {
					if e.Rule == ruleUnknown || e.Rule == ruleVersionField || (e.Rule == ruleType && !strings.Contains(e.Detail, "RFC 3339") && !strings.Contains(e.Detail, "quantity")) {
						typeErrs = append(typeErrs, e)
					}
				}
				apiErr := strictInto(d.Value)
				if d.Kind == kindList {
					continue // k8s.io/api leaves List items raw
				}
				if len(typeErrs) == 0 && apiErr != nil && !strings.Contains(apiErr.Error(), "time") && !strings.Contains(apiErr.Error(), "quantit") {
					t.Errorf("%s document %d: k8s.io/api refuses it (%v), the mirror accepts it", file, d.Index, apiErr)
				}
				if len(typeErrs) > 0 && apiErr == nil {
					t.Errorf("%s document %d: the mirror reports %v, k8s.io/api accepts it", file, d.Index, typeErrs)
				}
			}
		}
	}
}

func TestValidCorpusHasNoErrors(t *testing.T) {
	for file, docs := range corpusDocs(t, "valid") {
		for _, d := range docs {
			if Classify(d.APIVersion, d.Kind) != Modelled {
				continue
			}
			for _, e := range Validate(d.Value) {
				if e.Severity() != spec.Warning {
					t.Errorf("%s document %d: %v", file, d.Index, e)
				}
			}
		}
	}
}

// Every rule of the profile the validator reports has an invalid corpus case named after it.
func TestEveryRuleHasAnInvalidCase(t *testing.T) {
	for _, r := range spec.Rules() {
		if r.Profile != spec.ProfileKubernetes {
			continue
		}
		m, _ := filepath.Glob(filepath.Join("..", "testdata", "kubernetes", "invalid", r.ID+"-*"))
		if len(m) == 0 {
			t.Errorf("no case testdata/kubernetes/invalid/%s-*.yaml", r.ID)
		}
	}
}
