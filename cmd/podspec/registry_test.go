//go:build linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/registrytest"
	"podspec.dev/podspec/ocilayout"
)

// registrySetup starts a plain HTTP registry on loopback holding busybox images built by the
// test: REGISTRY/busybox:v1 and REGISTRY/report:1.0 (for defer containers).
func registrySetup(t *testing.T) (cmdline, *registrytest.Registry, string) {
	t.Helper()
	c, layout := runtimeTestSetup(t)
	reg := registrytest.Start(t, registrytest.Options{})
	d := reg.Push(layout, reg.Ref("busybox:v1"))
	reg.Push(layout, reg.Ref("report:1.0"))
	return c, reg, d
}

func podStatus(t *testing.T, c cmdline, pod string) *v1alpha1.PodStatus {
	t.Helper()
	out, code := c.run("status", pod, "-o", "json")
	if code != 0 {
		t.Fatalf("status %s: exit %d", pod, code)
	}
	var st v1alpha1.PodStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status %s: %v\n%s", pod, err, out)
	}
	return &st
}

// A Kubernetes Pod naming a registry image runs as written; convert of it validates; status
// reports the digest it ran (IMG-016).
func TestIMG016_AKubernetesPodWithARegistryImageRunsAndReportsItsDigest(t *testing.T) {
	c, reg, d := registrySetup(t)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "pod.yaml")
	os.WriteFile(manifest, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: k8s-registry}\nspec:\n  restartPolicy: Never\n  containers:\n  - name: web\n    image: "+
		reg.Ref("busybox:v1")+"\n    imagePullPolicy: IfNotPresent\n    command: [sh, -c, 'echo from the registry']\n"), 0o644)
	t.Cleanup(func() { c.run("rm", "--force", "k8s-registry") })
	if _, code := c.run("run", manifest); code != 0 {
		t.Fatalf("run: exit %d", code)
	}
	if logs, _ := c.run("logs", "k8s-registry", "web"); logs != "from the registry\n" {
		t.Errorf("logs %q", logs)
	}
	st := podStatus(t, c, "k8s-registry")
	if st.Phase != "Succeeded" || st.ContainerStatuses[0].ImageID != reg.Host+"/busybox@"+d {
		t.Errorf("status %s, imageID %q; want Succeeded, %s/busybox@%s", st.Phase, st.ContainerStatuses[0].ImageID, reg.Host, d)
	}
	out, _, code := c.runRaw("convert", manifest)
	if code != 0 {
		t.Fatalf("convert: exit %d", code)
	}
	converted := filepath.Join(dir, "converted.yaml")
	os.WriteFile(converted, []byte(out), 0o644)
	if !strings.Contains(out, "imagePullPolicy: IfNotPresent") || !strings.Contains(out, reg.Ref("busybox:v1")) {
		t.Errorf("convert lost the image or its policy:\n%s", out)
	}
	if _, _, code := c.runRaw("validate", converted); code != 0 {
		t.Errorf("the converted pod does not validate:\n%s", out)
	}
}

// A defer container's registry image is pulled when the pod is created, so it runs when the
// pod ends after the registry is gone (IMG-002, IMG-023).
func TestIMG023_ADeferContainerRunsAfterTheRegistryStopped(t *testing.T) {
	c, reg, _ := registrySetup(t)
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	os.WriteFile(manifest, []byte("apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: reg-defer}\nspec:\n  containers:\n  - name: main\n    image: "+
		reg.Ref("busybox:v1")+"\n    command: [sh, -c, \"trap 'exit 0' TERM; while true; do sleep 0.1; done\"]\n  deferContainers:\n  - name: report\n    image: "+reg.Ref("report:1.0")+
		"\n    command: [sh, -c, 'echo deferred ran']\n"), 0o644)
	t.Cleanup(func() { c.run("rm", "--force", "reg-defer") })
	if _, code := c.run("run", "--detach", manifest); code != 0 {
		t.Fatalf("run: exit %d", code)
	}
	// The main container runs (and traps SIGTERM) before the stop: the defer's turn then comes
	// after it exits, well within the budget, however fast the machine is.
	waitFor(t, "the main container to run", 30*time.Second, func() bool {
		r := readState(t, c.root, "reg-defer").Containers["main"]
		return r != nil && r.Running
	})
	reg.Stop()
	if _, code := c.run("stop", "reg-defer"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	if _, code := c.run("wait", "reg-defer", "--timeout", "60s"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	st := podStatus(t, c, "reg-defer")
	ds := st.DeferContainerStatuses[0]
	if ds.State.Terminated == nil || ds.State.Terminated.ExitCode == nil || *ds.State.Terminated.ExitCode != 0 {
		t.Fatalf("the defer container did not run: %+v", ds.State)
	}
	if logs, _ := c.run("logs", "reg-defer", "report"); logs != "deferred ran\n" {
		t.Errorf("defer logs %q", logs)
	}
}

// A failed pull fails the pod's creation with an error naming the image, and leaves no pod
// (IMG-003, IMG-017).
func TestIMG017_AFailedPullLeavesNoPod(t *testing.T) {
	c, reg, _ := registrySetup(t)
	cases := map[string]struct{ image, reason string }{
		"an unknown repository": {reg.Ref("nothing:v1"), "has no image"},
		"an unknown host":       {"registry.podspec.invalid/app:v1", "unknown registry host"},
		"a stopped registry":    {reg.Ref("busybox:v1"), "refused the connection"},
	}
	for _, name := range []string{"an unknown repository", "an unknown host", "a stopped registry"} {
		tc := cases[name]
		if name == "a stopped registry" {
			reg.Stop()
		}
		manifest := filepath.Join(t.TempDir(), "pod.yaml")
		os.WriteFile(manifest, []byte("apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: reg-fail}\nspec:\n  containers:\n  - name: main\n    image: "+tc.image+"\n"), 0o644)
		_, stderr, code := c.runErr("run", "--detach", manifest)
		if code != 1 || !strings.Contains(stderr, tc.image) || !strings.Contains(stderr, tc.reason) {
			t.Errorf("%s: exit %d, %s; want Failed naming %s with %q", name, code, stderr, tc.image, tc.reason)
		}
		if _, code := c.run("status", "reg-fail"); code == 0 {
			c.run("rm", "--force", "reg-fail")
			t.Errorf("%s: a pod was left", name)
		}
	}
}

// A tag that moves between two pods: each keeps the digest it resolved (IMG-015).
func TestIMG015_ATagThatMovesBetweenTwoPods(t *testing.T) {
	c, reg, d1 := registrySetup(t)
	manifest := func(name string) string {
		p := filepath.Join(t.TempDir(), "pod.yaml")
		os.WriteFile(p, []byte("apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: "+name+"}\nspec:\n  containers:\n  - name: main\n    image: "+
			reg.Ref("busybox:latest")+"\n    command: [sh, -c, 'cat /etc/label 2>/dev/null; sleep 300']\n"), 0o644)
		return p
	}
	reg.Push(filepath.Join(filepath.Dir(c.root), "busybox"), reg.Ref("busybox:latest"))
	t.Cleanup(func() { c.run("rm", "--force", "tag-one"); c.run("rm", "--force", "tag-two") })
	if _, code := c.run("run", "--detach", manifest("tag-one")); code != 0 {
		t.Fatal("run tag-one")
	}
	other := filepath.Join(t.TempDir(), "other")
	label := filepath.Join(t.TempDir(), "label")
	os.WriteFile(label, []byte("moved\n"), 0o644)
	if _, err := ocilayout.Build(context.Background(), other, ocilayout.BuildOptions{Busybox: true, Files: []ocilayout.File{{Source: label, Dest: "/etc/label"}}}); err != nil {
		t.Fatal(err)
	}
	d2 := reg.Push(other, reg.Ref("busybox:latest"))
	if _, code := c.run("run", "--detach", manifest("tag-two")); code != 0 { // latest: Always (IMG-022)
		t.Fatal("run tag-two")
	}
	one, two := podStatus(t, c, "tag-one"), podStatus(t, c, "tag-two")
	if one.ContainerStatuses[0].ImageID != reg.Host+"/busybox@"+d1 || two.ContainerStatuses[0].ImageID != reg.Host+"/busybox@"+d2 {
		t.Errorf("imageIDs %q and %q, want @%s and @%s", one.ContainerStatuses[0].ImageID, two.ContainerStatuses[0].ImageID, d1, d2)
	}
}

// image pull, ls, rm and prune: an image a pod uses stays; once no pod uses it, rm and prune
// remove it, its unpacked root filesystem included.
func TestImagePullListRemoveAndPrune(t *testing.T) {
	c, reg, d := registrySetup(t)
	ref := reg.Ref("busybox:v1")
	out, code := c.run("image", "pull", ref)
	if code != 0 || !strings.Contains(out, `"imageID":"`+reg.Host+"/busybox@"+d+`"`) {
		t.Fatalf("image pull: exit %d: %s", code, out)
	}
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	os.WriteFile(manifest, []byte("apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: img-user}\nspec:\n  containers:\n  - name: main\n    image: "+ref+"\n    imagePullPolicy: Never\n    command: [sleep, '300']\n"), 0o644)
	t.Cleanup(func() { c.run("rm", "--force", "img-user") })
	if _, code := c.run("run", "--detach", manifest); code != 0 {
		t.Fatalf("run with imagePullPolicy Never after image pull: exit %d", code)
	}
	if out, _ := c.run("image", "ls"); !strings.Contains(out, `"pods":["img-user"]`) {
		t.Errorf("image ls does not name the pod: %s", out)
	}
	if _, code := c.run("image", "rm", ref); code != 5 {
		t.Errorf("image rm of an image a pod uses: exit %d, want Conflict (5)", code)
	}
	if out, _ := c.run("image", "prune", "--older-than", "0s"); !strings.Contains(out, `"pulled":[]`) {
		t.Errorf("prune removed an image a pod uses: %s", out)
	}
	c.run("rm", "--force", "img-user")
	rootfs := filepath.Join(c.root, "images", "rootfs-v2", strings.TrimPrefix(d, "sha256:"))
	if _, err := os.Stat(rootfs); err != nil {
		t.Fatalf("no unpacked root filesystem at %s: %v", rootfs, err)
	}
	if out, code := c.run("image", "rm", ref); code != 0 || !strings.Contains(out, d) {
		t.Errorf("image rm: exit %d: %s", code, out)
	}
	if _, err := os.Stat(rootfs); !os.IsNotExist(err) {
		t.Errorf("image rm left the unpacked root filesystem: %v", err)
	}
	if out, _ := c.run("image", "ls"); strings.TrimSpace(out) != "[]" {
		t.Errorf("image ls after rm: %s", out)
	}
	// prune: a pulled image no pod uses goes, with its blobs.
	if _, code := c.run("image", "pull", reg.Ref("report:1.0")); code != 0 {
		t.Fatal("image pull report")
	}
	if out, _ := c.run("image", "prune", "--older-than", "0s"); !strings.Contains(out, d) {
		t.Errorf("prune did not remove the unused image %s: %s", d, out)
	}
	if blobs, _ := os.ReadDir(filepath.Join(c.root, "images", "registry", "blobs", "sha256")); len(blobs) != 0 {
		t.Errorf("prune left %d blobs", len(blobs))
	}
}

// A TLS registry with basic auth: run finds the CA with --registry-certs-dir and the
// credentials in $REGISTRY_AUTH_FILE; wrong credentials fail the creation naming the image.
func TestIMG017_RunFromATLSRegistryWithCredentials(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	reg := registrytest.Start(t, registrytest.Options{TLS: true})
	d := reg.Push(layout, reg.Ref("busybox:v1"))
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	os.WriteFile(manifest, []byte("apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: reg-tls}\nspec:\n  restartPolicy: Never\n  containers:\n  - name: main\n    image: "+
		reg.Ref("busybox:v1")+"\n    command: [echo, over TLS]\n"), 0o644)
	t.Cleanup(func() { c.run("rm", "--force", "reg-tls") })
	dir := t.TempDir()
	t.Setenv("REGISTRY_AUTH_FILE", reg.AuthFile(dir, true))
	if _, stderr, code := c.runErr("run", "--registry-certs-dir", reg.CADir, manifest); code == 0 || !strings.Contains(stderr, "refused the credentials") || !strings.Contains(stderr, reg.Ref("busybox:v1")) {
		t.Fatalf("wrong credentials: exit %d: %s", code, stderr)
	}
	t.Setenv("REGISTRY_AUTH_FILE", reg.AuthFile(dir, false))
	if _, stderr, code := c.runErr("run", "--registry-certs-dir", reg.CADir, manifest); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if logs, _ := c.run("logs", "reg-tls", "main"); logs != "over TLS\n" {
		t.Errorf("logs %q", logs)
	}
	if id := podStatus(t, c, "reg-tls").ContainerStatuses[0].ImageID; id != reg.Host+"/busybox@"+d {
		t.Errorf("imageID %q", id)
	}
}
