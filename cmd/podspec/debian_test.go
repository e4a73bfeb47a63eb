//go:build linux

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/internal/debianimage"
	"podspec.dev/podspec/internal/registrytest"
)

// debianLayout returns the layout of internal/debianimage (Debian bookworm with nginx, curl and
// Python), made once in the test cache; the test is skipped when it cannot be made here.
func debianLayout(t *testing.T) string {
	t.Helper()
	cache, err := debianimage.DefaultCache()
	if err == nil {
		var layout string
		if layout, err = debianimage.Layout(cache); err == nil {
			return layout
		}
	}
	if errors.Is(err, debianimage.ErrUnavailable) {
		t.Skip(err)
	}
	t.Fatal(err)
	return ""
}

// debianPod is a pod of Debian's own programs: nginx, as a sidecar that starts as root, chowns
// its directories to www-data and runs its workers as www-data (the capabilities of SEC-011),
// Started once curl gets its page; a main container that fetches the page over the pod's
// loopback with curl; and a main container whose Python program runs eight threads (glibc's
// pthread_create: clone3, SEC-010). The pod ends when both mains have.
const debianPod = `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata:
  name: %[1]s
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 10
  initContainers:
    - name: nginx
      image: oci:%[2]s:bookworm
      restartPolicy: Always
      command: [nginx, -g, "daemon off;"]
      startupProbe:
        exec: {command: [curl, -fsS, -o, /dev/null, "http://127.0.0.1/"]}
        periodSeconds: 1
        failureThreshold: 60
  containers:
    - name: client
      image: oci:%[2]s:bookworm
      command: [sh, -c, 'curl -fsS http://127.0.0.1/ | grep -o "Welcome to nginx!" | head -1']
    - name: python
      image: oci:%[2]s:bookworm
      command:
        - python3
        - -c
        - |
          import threading
          results = []
          lock = threading.Lock()
          def work(n):
              total = sum(i * i for i in range(10000 * n))
              with lock:
                  results.append(total)
          threads = [threading.Thread(target=work, args=(n,)) for n in range(1, 9)]
          for t in threads:
              t.start()
          for t in threads:
              t.join()
          print(f"{len(results)} threads ran")
`

// TestSEC010_SEC011_DebianProgramsRunInAPod runs Debian bookworm's nginx, curl and Python from
// a root filesystem mmdebstrap made, on runc and on every other OCI runtime this host has: nginx
// serves on the pod's loopback and a second container fetches its page, and a threaded Python
// program runs. Before the reference took Docker's capabilities and moby's seccomp profile,
// nginx exited at once (chown of /var/lib/nginx/body: EPERM) and Python's threads failed
// (clone3: EPERM).
func TestSEC010_SEC011_DebianProgramsRunInAPod(t *testing.T) {
	c, _ := runtimeTestSetup(t)
	layout := debianLayout(t)
	wrapper, err := filepath.Abs("../../scripts/runsc-host-network") // runsc's own network mode (docs/runtime.md)
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range []struct{ name, binary string }{{"runc", "runc"}, {"crun", "crun"}, {"runsc", wrapper}} {
		t.Run(rt.name, func(t *testing.T) {
			if _, err := exec.LookPath(rt.name); err != nil {
				t.Skipf("%s is not installed", rt.name)
			}
			name := "debian-" + rt.name
			manifest := filepath.Join(t.TempDir(), name+".yaml")
			if err := os.WriteFile(manifest, []byte(fmt.Sprintf(debianPod, name, layout)), 0o644); err != nil {
				t.Fatal(err)
			}
			rc := cmdline{t: t, root: c.root + "-" + rt.name}
			oci := []string{"--oci-runtime", rt.binary}
			if _, code := rc.run(append(oci, "run", "--detach", manifest)...); code != 0 {
				t.Fatalf("run: exit %d", code)
			}
			t.Cleanup(func() { rc.run(append(oci, "rm", "--force", name)...) })
			out, code := rc.run(append(oci, "wait", "--timeout", "120s", name)...)
			logs := func(container string) string {
				l, _ := rc.run(append(oci, "logs", name, container)...)
				return l
			}
			if code != 0 {
				evs, _ := rc.run(append(oci, "events", name)...)
				t.Fatalf("wait: exit %d: %s\nevents:\n%s\nnginx:\n%s\nclient:\n%s\npython:\n%s", code, out, evs, logs("nginx"), logs("client"), logs("python"))
			}
			var st struct {
				Phase string `json:"phase"`
			}
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatalf("wait printed %q: %v", out, err)
			}
			if st.Phase != "Succeeded" || !strings.Contains(logs("client"), "Welcome to nginx!") || !strings.Contains(logs("python"), "8 threads ran") {
				evs, _ := rc.run(append(oci, "events", name)...)
				t.Fatalf("phase %s, want Succeeded with nginx's page fetched and 8 threads run\nevents:\n%s\nnginx:\n%s\nclient:\n%s\npython:\n%s", st.Phase, evs, logs("nginx"), logs("client"), logs("python"))
			}
		})
	}
}

// nginxContainer is Debian's nginx with its port named and an httpGet readiness probe on that
// name, whose timing the pods below finish.
const nginxContainer = `    - name: nginx
      image: %[2]s
      command: [nginx, -g, "daemon off;"]
      ports:
        - {name: http, containerPort: 80}
      readinessProbe:
        httpGet: {path: /, port: http}
`

// nginxKubernetesPod is a Kubernetes Pod as people write it: nginx from a registry, probed.
const nginxKubernetesPod = `apiVersion: v1
kind: Pod
metadata:
  name: %[1]s
spec:
  terminationGracePeriodSeconds: 10
  containers:
` + nginxContainer + `        periodSeconds: 1
`

// nginxDependentPod is a podspec Pod whose client starts only once nginx is Ready: its first
// readiness check comes 2 s after nginx starts, so a client started before it would be seen.
const nginxDependentPod = `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata:
  name: %[1]s
spec:
  restartPolicy: Never
  exitPolicy: Any
  terminationGracePeriodSeconds: 10
  containers:
` + nginxContainer + `        initialDelaySeconds: 2
        periodSeconds: 1
    - name: client
      image: %[2]s
      dependsOn: [{name: nginx, condition: Ready}]
      command: [sh, -c, 'curl -fsS http://127.0.0.1/ | grep -o "Welcome to nginx!" | head -1']
`

// The demo of issue 32, as a test: Debian's nginx, pushed to a registry on loopback, run from a
// Kubernetes Pod with an httpGet readiness probe and its port published, answers curl's request
// from the host, and is Ready; a podspec Pod's container that dependsOn nginx being Ready starts
// only after nginx's readiness probe succeeded, and fetches the page over the pod's loopback.
func TestNginxFromARegistryAnswersOnAPublishedPortAndGatesADependentOnReadiness(t *testing.T) {
	c, _ := runtimeTestSetup(t)
	layout := debianLayout(t)
	reg := registrytest.Start(t, registrytest.Options{})
	reg.Push(layout, reg.Ref("library/nginx:bookworm"))
	image := reg.Ref("library/nginx:bookworm")
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(path, []byte(fmt.Sprintf(text, name, image)), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}

	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	t.Cleanup(func() { c.run("rm", "--force", "nginx-k8s") })
	if _, code := c.run("run", "--detach", "--publish", strconv.Itoa(port)+":80", write("nginx-k8s", nginxKubernetesPod)); code != 0 {
		t.Fatalf("run --detach --publish: exit %d", code)
	}
	var body string
	waitFor(t, "nginx to answer on the published port", 90*time.Second, func() bool {
		body, _ = framework.FetchPage(addr)
		return strings.Contains(body, "Welcome to nginx!")
	})
	waitFor(t, "nginx to be Ready", 30*time.Second, func() bool {
		st := podStatus(t, c, "nginx-k8s")
		return len(st.ContainerStatuses) == 1 && st.ContainerStatuses[0].Ready
	})
	if _, code := c.run("rm", "--force", "nginx-k8s"); code != 0 {
		t.Fatalf("rm --force: exit %d", code)
	}
	waitFor(t, "nothing to listen after the pod is removed", 10*time.Second, func() bool { return !framework.Accepts(addr) })

	t.Cleanup(func() { c.run("rm", "--force", "nginx-ready") })
	if _, code := c.run("run", "--detach", write("nginx-ready", nginxDependentPod)); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	if out, code := c.run("wait", "--timeout", "120s", "nginx-ready"); code != 0 {
		evs, _ := c.run("events", "nginx-ready")
		t.Fatalf("wait: exit %d: %s\nevents:\n%s", code, out, evs)
	}
	if logs, _ := c.run("logs", "nginx-ready", "client"); logs != "Welcome to nginx!\n" {
		t.Errorf("client's log %q, want nginx's page fetched", logs)
	}
	var ready, clientStarted time.Time
	for _, ev := range events(t, c, "nginx-ready") {
		switch {
		case ev.Type == runtimev1.EventContainerReady && ev.Container == "nginx" && ready.IsZero():
			ready = ev.Time
		case ev.Type == runtimev1.EventContainerStarted && ev.Container == "client":
			clientStarted = ev.Time
		}
	}
	if ready.IsZero() || clientStarted.IsZero() || clientStarted.Before(ready) {
		t.Errorf("nginx Ready at %s, client started at %s: want the client started after nginx was Ready", ready, clientStarted)
	}
}
