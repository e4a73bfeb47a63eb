package kubernetes

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/corpustest"
	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation"
	"podspec.dev/podspec/validation/field"
)

// jsonValue turns a Go value into the JSON-compatible tree package manifest produces.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	docs, fs := manifest.Decode("out.json", b, manifest.DefaultLimits())
	if len(docs) != 1 || len(fs) > 0 {
		t.Fatalf("decode %s: %v", b, fs)
	}
	return docs[0].Value
}

// deletePath removes what a path names from a JSON-compatible tree.
func deletePath(v any, tokens []string) {
	for i, tok := range tokens {
		last := i == len(tokens)-1
		switch x := v.(type) {
		case map[string]any:
			if last {
				delete(x, tok)
				return
			}
			v = x[tok]
		case []any:
			var n int
			if _, err := jsonSscan(tok, &n); err != nil || n >= len(x) {
				return
			}
			if last {
				x[n] = nil // keeps later indexes in place; removed by compact
				return
			}
			v = x[n]
		default:
			return
		}
	}
}

// objectAt is the object at tokens below v (nil if there is none).
func objectAt(v any, tokens []string) map[string]any {
	for _, tok := range tokens {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			var n int
			if _, err := jsonSscan(tok, &n); err != nil || n >= len(x) {
				return nil
			}
			v = x[n]
		}
	}
	m, _ := v.(map[string]any)
	return m
}

func jsonSscan(s string, n *int) (int, error) { return 1, json.Unmarshal([]byte(s), n) }

// compact drops nil array elements, empty objects and arrays, so a tree with parts deleted
// compares with one that never had them.
func compact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if c := compact(e); c == nil {
				delete(x, k)
			} else {
				x[k] = c
			}
		}
		if len(x) == 0 {
			return nil
		}
	case []any:
		var out []any
		for _, e := range x {
			if c := compact(e); c != nil {
				out = append(out, c)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return v
}

// foldPodSecurityContext applies Kubernetes' precedence to a pod (a JSON value): the pod's
// runAsUser, runAsGroup and runAsNonRoot move into every container's securityContext that does
// not set its own, as the converter carries them.
func foldPodSecurityContext(pod any) {
	spec, _ := pod.(map[string]any)["spec"].(map[string]any)
	psc, _ := spec["securityContext"].(map[string]any)
	if psc == nil {
		return
	}
	for _, list := range []string{"initContainers", "containers"} {
		cs, _ := spec[list].([]any)
		for _, c := range cs {
			c := c.(map[string]any)
			for _, k := range []string{"runAsUser", "runAsGroup", "runAsNonRoot"} {
				v, ok := psc[k]
				if !ok {
					continue
				}
				sc, _ := c["securityContext"].(map[string]any)
				if sc == nil {
					sc = map[string]any{}
					c["securityContext"] = sc
				}
				if _, set := sc[k]; !set {
					sc[k] = v
				}
			}
		}
	}
	for _, k := range []string{"runAsUser", "runAsGroup", "runAsNonRoot"} {
		delete(psc, k)
	}
}

// TestKUBE017_KubernetesToPodspecToKubernetesKeepsAllButTheReportedFields converts every pod of
// the valid corpus to podspec and back: the result is the pod as written (the pod's
// securityContext folded into its containers', as Kubernetes applies it), less exactly the
// fields reported as not carried over (and nothing else lost or added).
func TestKUBE017_KubernetesToPodspecToKubernetesKeepsAllButTheReportedFields(t *testing.T) {
	n := 0
	for file, docs := range corpusDocs(t, "valid") {
		for _, d := range docs {
			if Classify(d.APIVersion, d.Kind) != Modelled {
				continue
			}
			pods, lost := ToPodspec(d.Value)
			for _, e := range lost {
				if e.Rule != ruleNotCarried && (e.Rule != ruleNormalised || !strings.HasSuffix(e.Field.String(), ".hostPort")) {
					t.Fatalf("%s: %v", file, e)
				}
			}
			for _, c := range pods {
				n++
				back, lost2 := FromPodspec(c.Pod)
				if len(lost2) > 0 {
					t.Errorf("%s: a converted pod lost %v on its way back", file, lost2)
				}
				tmpl := c.From.Template()
				// The source pod: the Pod itself, or the template with the workload's name.
				src := jsonValue(t, valueAt(d.Value, tmpl.PodPath))
				for _, e := range lost {
					rel, ok := relative(e.Field, tmpl.PodPath)
					switch {
					case !ok:
					case e.Rule == ruleNormalised:
						// A hostPort without hostIP comes back with podspec's default written out.
						objectAt(src, rel[:len(rel)-1])["hostIP"] = v1alpha1.DefaultHostIP
					default:
						deletePath(src, rel)
					}
				}
				foldPodSecurityContext(src)
				got := jsonValue(t, back)
				m := got.(map[string]any)
				delete(m, "apiVersion")
				delete(m, "kind")
				if c.From.Kind != "Pod" {
					delete(m["metadata"].(map[string]any), "name") // the workload's, added
				} else {
					delete(src.(map[string]any), "apiVersion")
					delete(src.(map[string]any), "kind")
				}
				if spec, _ := m["spec"].(map[string]any); spec != nil && spec["os"] != nil {
					if s, _ := src.(map[string]any)["spec"].(map[string]any); s["os"] == nil {
						t.Errorf("%s: os added without a stop signal", file)
					}
				}
				if want, got := compact(src), compact(got); !reflect.DeepEqual(want, got) {
					wj, _ := json.Marshal(want)
					gj, _ := json.Marshal(got)
					t.Errorf("%s document %d: round trip differs\n  want %s\n  got  %s", file, d.Index, wj, gj)
				}
			}
		}
	}
	if n < 8 {
		t.Errorf("round-tripped %d pods, want the corpus's", n)
	}
}

// relative returns the tokens of p below prefix.
func relative(p, prefix *field.Path) ([]string, bool) {
	pt, xt := p.Tokens(), prefix.Tokens()
	if len(pt) < len(xt) {
		return nil, false
	}
	for i := range xt {
		if pt[i] != xt[i] {
			return nil, false
		}
	}
	return pt[len(xt):], true
}

// TestKUBE018_PodspecOnlyFieldsAreReportedAndTheRestDecodesStrictly converts the examples: what
// Kubernetes has no field for is reported at its path, and the Pod written decodes strictly into
// k8s.io/api's Pod and passes the Kubernetes profile.
func TestKUBE018_PodspecOnlyFieldsAreReportedAndTheRestDecodesStrictly(t *testing.T) {
	data, err := os.ReadFile("../examples/demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := manifest.Decode("demo.yaml", data, manifest.DefaultLimits())
	p, err := docs[0].Pod()
	if err != nil {
		t.Fatal(err)
	}
	kp, lost := FromPodspec(p)
	var paths []string
	for _, e := range lost {
		paths = append(paths, e.Field.String())
	}
	want := []string{"spec.exitPolicy", "spec.containers[0].resources.limits[pids]", "spec.containers[1].dependsOn[0]"}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("reported %v, want %v", paths, want)
	}
	b, _ := json.Marshal(kp)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(new(corev1.Pod)); err != nil {
		t.Errorf("the Kubernetes Pod does not decode strictly into k8s.io/api: %v\n%s", err, b)
	}
	for _, e := range Validate(jsonValue(t, kp)) {
		t.Errorf("the Kubernetes Pod written has a finding: %v", e)
	}

	full := &v1alpha1.Pod{Metadata: v1alpha1.ObjectMeta{Name: "x"}, Spec: v1alpha1.PodSpec{
		RestartBackoff:  &v1alpha1.Backoff{},
		Volumes:         []v1alpha1.Volume{{Name: "s", Shared: &v1alpha1.SharedVolumeSource{Name: "s"}}},
		Containers:      []v1alpha1.Container{{Name: "a", Image: "oci:a", StopSignal: "SIGINT", Notifiers: []v1alpha1.Notifier{{Name: "n"}}, VolumeMounts: []v1alpha1.VolumeMount{{Name: "s", MountPath: "/s"}}}},
		DeferContainers: []v1alpha1.DeferContainer{{Name: "d", Image: "oci:d"}},
	}}
	kp, lost = FromPodspec(full)
	var got []string
	for _, e := range lost {
		got = append(got, e.Field.String())
	}
	want = []string{"spec.restartBackoff", "spec.volumes[0].shared", "spec.containers[0].volumeMounts[0]", "spec.containers[0].notifiers[0]", "spec.deferContainers[0]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reported %v, want %v", got, want)
	}
	if kp.Spec.OS == nil || kp.Spec.OS.Name != "linux" || *kp.Spec.Containers[0].Lifecycle.StopSignal != "SIGINT" {
		t.Errorf("a stop signal needs os linux: %+v", kp.Spec)
	}
	if errs := Validate(jsonValue(t, kp)); len(errs) > 0 {
		t.Errorf("the Kubernetes Pod written has findings: %v", errs)
	}
}

func TestToPodspecRefusesAnInvalidObject(t *testing.T) {
	pods, errs := ToPodspec(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "a"}}}})
	if pods != nil || len(errs) != 1 || !strings.Contains(errs[0].Error(), "image") {
		t.Errorf("ToPodspec of a Pod without an image = %v, %v", pods, errs)
	}
}

// Every valid podspec Pod of the corpus and the examples converts to a Kubernetes Pod that
// decodes strictly into k8s.io/api and that the Kubernetes profile finds no error in.
func TestEveryValidPodspecPodConvertsToAValidKubernetesPod(t *testing.T) {
	pods := validPodspecPods(t)
	for _, vp := range pods {
		kp, _ := FromPodspec(vp.pod)
		b, _ := json.Marshal(kp)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(new(corev1.Pod)); err != nil {
			t.Errorf("%s: does not decode strictly into k8s.io/api: %v", vp.file, err)
		}
		for _, e := range Validate(jsonValue(t, kp)) {
			if e.Severity() == spec.Error {
				t.Errorf("%s: the Kubernetes Pod written has an error: %v", vp.file, e)
			}
		}
	}
	if len(pods) < 10 {
		t.Errorf("converted %d pods", len(pods))
	}
}

// validPod is one valid podspec Pod of the corpus or the examples, and its file.
type validPod struct {
	file string
	pod  *v1alpha1.Pod
}

// validPodspecPods returns every podspec Pod of the valid corpus and the examples.
func validPodspecPods(t *testing.T) []validPod {
	t.Helper()
	var out []validPod
	for _, d := range corpustest.ValidDocuments(t, "..") {
		if d.Kind != v1alpha1.KindPod {
			continue
		}
		if p, err := d.Pod(); err == nil {
			out = append(out, validPod{file: d.File, pod: p})
		}
	}
	return out
}

// TestKUBE019_AHostPathWithATrailingSlashIsCarriedOverCleanAndReported: Kubernetes accepts
// "/data/" as the directory /data; the podspec Pod gets the clean path (which VOL-003 requires)
// and the change is reported at the path's position, while a clean path and "/" are left alone.
func TestKUBE019_AHostPathWithATrailingSlashIsCarriedOverCleanAndReported(t *testing.T) {
	pod := func(path string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"},
			"spec": map[string]any{
				"volumes":    []any{map[string]any{"name": "data", "hostPath": map[string]any{"path": path}}},
				"containers": []any{map[string]any{"name": "a", "image": "oci:a"}}}}
	}
	for _, c := range []struct{ in, want, reported string }{
		{"/data//", "/data", "spec.volumes[0].hostPath.path"},
		{"/data", "/data", ""},
		{"/", "/", ""},
	} {
		pods, errs := ToPodspec(pod(c.in))
		if len(pods) != 1 {
			t.Fatalf("%q: converted %d pods (%v)", c.in, len(pods), errs)
		}
		if got := pods[0].Pod.Spec.Volumes[0].HostPath.Path; got != c.want {
			t.Errorf("hostPath %q carried over as %q, want %q", c.in, got, c.want)
		}
		var reported string
		for _, e := range errs {
			if e.Rule == spec.KUBE019 {
				reported = e.Field.String()
			}
		}
		if reported != c.reported {
			t.Errorf("hostPath %q: KUBE-019 at %q, want %q", c.in, reported, c.reported)
		}
	}
}

// A Kubernetes hostPort is carried over with its hostIP, both ways; one without hostIP is
// reported (KUBE-019: podspec's default is 127.0.0.1, Kubernetes' every address) and comes back
// with 127.0.0.1 written out; a UDP hostPort and a hostIP without hostPort are not carried over
// (KUBE-017), and the podspec Pod validates clean.
func TestHostPortsAreCarriedOverTCPOnlyWithTheDefaultAddressReported(t *testing.T) {
	for _, c := range []struct {
		name                 string
		port                 map[string]any
		hostPort             int32
		hostIP, backIP, rule string
		reported             string
	}{
		{"with hostIP", map[string]any{"containerPort": int64(80), "hostPort": int64(8080), "hostIP": "0.0.0.0"}, 8080, "0.0.0.0", "0.0.0.0", "", ""},
		{"without hostIP", map[string]any{"containerPort": int64(80), "hostPort": int64(8080)}, 8080, "", "127.0.0.1", spec.KUBE019, "spec.containers[0].ports[0].hostPort"},
		{"UDP", map[string]any{"containerPort": int64(53), "hostPort": int64(53), "protocol": "UDP"}, 0, "", "", spec.KUBE017, "spec.containers[0].ports[0].hostPort"},
		{"hostIP alone", map[string]any{"containerPort": int64(80), "hostIP": "127.0.0.1"}, 0, "", "", spec.KUBE017, "spec.containers[0].ports[0].hostIP"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pods, errs := ToPodspec(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "a", "image": "oci:a", "ports": []any{c.port}}}}})
			if len(pods) != 1 {
				t.Fatalf("converted %d pods (%v)", len(pods), errs)
			}
			got := pods[0].Pod.Spec.Containers[0].Ports[0]
			if got.HostPort != c.hostPort || got.HostIP != c.hostIP {
				t.Errorf("carried over hostPort %d hostIP %q, want %d %q", got.HostPort, got.HostIP, c.hostPort, c.hostIP)
			}
			var reported []string
			for _, e := range errs {
				reported = append(reported, e.Rule+" "+e.Field.String())
			}
			var want []string
			if c.rule != "" {
				want = []string{c.rule + " " + c.reported}
			}
			if !slices.Equal(reported, want) {
				t.Errorf("reported %v, want %v", reported, want)
			}
			if verrs := validation.ValidatePod(pods[0].Pod); len(verrs) > 0 {
				t.Errorf("the podspec Pod does not validate: %v", verrs)
			}
			back, lost := FromPodspec(pods[0].Pod)
			if len(lost) > 0 {
				t.Fatalf("lost on the way back: %v", lost)
			}
			if p := back.Spec.Containers[0].Ports[0]; p.HostIP != c.backIP || p.HostPort != c.hostPort {
				t.Errorf("the way back: hostPort %d hostIP %q, want %d %q", p.HostPort, p.HostIP, c.hostPort, c.backIP)
			}
		})
	}
}

// The pod's securityContext reaches every container that does not set the same field, as
// Kubernetes applies it (a pod's runAsNonRoot: true would otherwise be lost, and its
// containers run as root); what podspec has no counterpart for is reported at its path.
func TestThePodsSecurityContextReachesEachContainer(t *testing.T) {
	docs, _ := manifest.Decode("pod.yaml", []byte(`apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  securityContext:
    runAsUser: 1000
    runAsGroup: 3000
    runAsNonRoot: true
    fsGroup: 2000
    seccompProfile: {type: RuntimeDefault}
  initContainers:
    - {name: setup, image: busybox, securityContext: {runAsUser: 0, runAsNonRoot: false}}
  containers:
    - {name: web, image: nginx}
`), manifest.DefaultLimits())
	pods, notes := ToPodspec(docs[0].Value)
	if len(pods) != 1 {
		t.Fatalf("converted %d pods: %v", len(pods), notes)
	}
	spec := pods[0].Pod.Spec
	setup, web := spec.InitContainers[0].SecurityContext, spec.Containers[0].SecurityContext
	if setup == nil || *setup.RunAsUser != 0 || *setup.RunAsGroup != 3000 || *setup.RunAsNonRoot {
		t.Errorf("setup's securityContext %+v: want its own runAsUser 0 and runAsNonRoot false, the pod's runAsGroup 3000", setup)
	}
	if web == nil || *web.RunAsUser != 1000 || *web.RunAsGroup != 3000 || !*web.RunAsNonRoot {
		t.Errorf("web's securityContext %+v: want the pod's runAsUser 1000, runAsGroup 3000, runAsNonRoot true", web)
	}
	var paths []string
	for _, n := range notes {
		if n.Rule != ruleNotCarried {
			t.Errorf("a finding other than %s: %v", ruleNotCarried, n)
		}
		paths = append(paths, n.Field.String())
	}
	if want := []string{"spec.securityContext.seccompProfile", "spec.securityContext.fsGroup"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("reported %v, want %v", paths, want)
	}
}
