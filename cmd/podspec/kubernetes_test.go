package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Kubernetes v1 Pod runs through the conversion: its init container runs first, then its
// sidecar (an init container with restartPolicy Always) starts and is Started by its startup
// probe, then the main container runs, and the sidecar is stopped once the main container is
// done (KEP-753). What podspec does not model (the port) is reported, not refused.
func TestRunAKubernetesPodWithAnInitContainerAndASidecarInOrder(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	manifest := filepath.Join(t.TempDir(), "k8s-pod.yaml")
	os.WriteFile(manifest, []byte(`apiVersion: v1
kind: Pod
metadata: {name: k8s-order}
spec:
  restartPolicy: Never
  volumes: [{name: data, emptyDir: {}}]
  initContainers:
  - name: prepare
    image: "oci:`+layout+`"
    command: [sh, -c, "echo prepare >> /data/order"]
    volumeMounts: [{name: data, mountPath: /data}]
  - name: proxy
    image: "oci:`+layout+`"
    restartPolicy: Always
    command: [sh, -c, "trap 'echo proxy-stopped >> /data/order; exit 0' TERM; echo proxy >> /data/order; touch /data/up; while true; do sleep 0.05; done"]
    startupProbe: {exec: {command: [test, -f, /data/up]}, periodSeconds: 1}
    ports: [{containerPort: 8080}]
    volumeMounts: [{name: data, mountPath: /data}]
  containers:
  - name: app
    image: "oci:`+layout+`"
    command: [sh, -c, "echo app >> /data/order; cat /data/order"]
    volumeMounts: [{name: data, mountPath: /data}]
`), 0o644)
	t.Cleanup(func() { c.run("rm", "--force", "k8s-order") })
	if _, code := c.run("run", manifest); code != 0 {
		t.Fatalf("run: exit %d", code)
	}
	logs, _ := c.run("logs", "k8s-order", "app")
	if logs != "prepare\nproxy\napp\n" {
		t.Errorf("app saw the order %q, want prepare, proxy, app", logs)
	}
	st := readState(t, c.root, "k8s-order")
	if st.Pod.Status == nil || st.Pod.Status.Phase != "Succeeded" {
		t.Errorf("pod status %+v, want Succeeded", st.Pod.Status)
	}
	for _, cs := range st.Pod.Status.InitContainerStatuses {
		if cs.Name == "proxy" && (cs.State.Terminated == nil || !strings.Contains(cs.State.Terminated.Reason, "Stop")) {
			t.Errorf("sidecar proxy %+v, want stopped after the app finished", cs.State)
		}
	}
}

// An image reference podspec cannot read is refused with IMG-001 at the image field.
func TestRunAKubernetesPodWithAnUnreadableImageNamesTheField(t *testing.T) {
	c, _ := runtimeTestSetup(t)
	manifest := filepath.Join(t.TempDir(), "k8s-pod.yaml")
	os.WriteFile(manifest, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: k8s-registry}\nspec:\n  containers:\n  - name: web\n    image: docker://nginx:1.27\n"), 0o644)
	stdout, stderr, code := c.runStderr("run", manifest)
	out := stdout + stderr
	if code == 0 {
		c.run("rm", "--force", "k8s-registry")
		t.Fatal("a Pod with a docker:// image ran")
	}
	if !strings.Contains(out, `"line":7,"column":12`) || !strings.Contains(out, `"rule":"IMG-001"`) || !strings.Contains(out, `"path":"spec.containers[0].image"`) {
		t.Errorf("output %q does not name the image field at 7:12 with IMG-001", out)
	}
}

// podspec convert writes a podspec Pod that validates clean, and reports what it did not carry
// over on stderr with positions; --strict makes that exit 1, and the way back gives a Kubernetes
// Pod that validates clean too.
func TestConvertBothWays(t *testing.T) {
	c := cmdline{t: t, root: t.TempDir()}
	dir := t.TempDir()
	src := filepath.Join(dir, "k8s.yaml")
	os.WriteFile(src, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec:\n  containers:\n  - name: web\n    image: oci:images/web\n    ports: [{containerPort: 80, hostPort: 8080}]\n"), 0o644)
	out, errs, code := c.runRaw("convert", src)
	if code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	for _, want := range []string{"k8s.yaml:3:23: KUBE-017: metadata.namespace", "k8s.yaml:8:43: KUBE-019: spec.containers[0].ports[0].hostPort"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q lacks %q", errs, want)
		}
	}
	pod := filepath.Join(dir, "pod.yaml")
	os.WriteFile(pod, []byte(out), 0o644)
	if vout, _, code := c.runRaw("validate", pod); code != 0 || !strings.Contains(out, "apiVersion: podspec.dev/v1alpha1") {
		t.Errorf("the converted pod does not validate (exit %d):\n%s\n%s", code, out, vout)
	}
	if _, _, code := c.runRaw("convert", "--strict", src); code != 1 {
		t.Errorf("convert --strict with fields not carried over: exit %d, want 1", code)
	}
	back, errs, code := c.runRaw("convert", "--to", "kubernetes", pod)
	if code != 0 || errs != "" {
		t.Fatalf("convert back: exit %d: %s", code, errs)
	}
	if !strings.Contains(back, "hostIP: 127.0.0.1") || !strings.Contains(back, "hostPort: 8080") {
		t.Errorf("the way back does not publish 127.0.0.1:8080 (podspec's default hostIP written out):\n%s", back)
	}
	kpod := filepath.Join(dir, "back.yaml")
	os.WriteFile(kpod, []byte(back), 0o644)
	if vout, _, code := c.runRaw("validate", kpod); code != 0 || !strings.Contains(back, "apiVersion: v1") {
		t.Errorf("the Kubernetes pod written does not validate (exit %d):\n%s\n%s", code, back, vout)
	}
	if _, _, code := c.runRaw("convert", "--to", "podspec", pod); code != 1 {
		t.Errorf("convert --to podspec of a podspec Pod: exit %d, want 1", code)
	}
}

// podspec convert works document by document: an invalid document is skipped and reported,
// with its errors, and the other documents of the file are still converted (exit 1).
func TestConvertSkipsOnlyTheInvalidDocument(t *testing.T) {
	c := cmdline{t: t, root: t.TempDir()}
	src := filepath.Join(t.TempDir(), "k8s.yaml")
	os.WriteFile(src, []byte(`apiVersion: v1
kind: Pod
metadata: {name: first}
spec: {containers: [{name: a, image: oci:images/a}]}
---
apiVersion: v1
kind: Pod
metadata: {name: broken}
spec: {containers: [{name: b}]}
---
apiVersion: v1
kind: Service
metadata: {name: svc}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: third}
spec:
  selector: {matchLabels: {app: c}}
  template:
    metadata: {labels: {app: c}}
    spec: {containers: [{name: c, image: oci:images/c}]}
`), 0o644)
	out, errs, code := c.runRaw("convert", src)
	if code != 1 {
		t.Errorf("convert of a file with one invalid document: exit %d, want 1", code)
	}
	if n := strings.Count(out, "kind: Pod"); n != 2 || !strings.Contains(out, "name: first") || !strings.Contains(out, "name: third") {
		t.Errorf("converted %d pods, want first and third:\n%s", n, out)
	}
	for _, want := range []string{"k8s.yaml:9:21: error KUBE-007", "document 1 (Pod broken): skipped: 1 error(s)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q lacks %q", errs, want)
		}
	}
	if strings.Contains(errs, "svc") {
		t.Errorf("a Service, which carries no pod, is reported: %s", errs)
	}
}
