package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/internal/procstat"
)

// freePort returns a TCP port on 127.0.0.1 that nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	port, err := framework.FreeLoopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// httpdPod writes the manifest of a pod whose busybox httpd serves "hello from NAME" on its
// 127.0.0.1:8080, with ports (a flow sequence's items, may be empty), and returns its path.
func httpdPod(t *testing.T, dir, layout, name, ports string) string {
	t.Helper()
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: `+name+`}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
  - name: web
    image: "oci:`+layout+`"
    command: [sh, -c, "mkdir -p /www && echo hello from `+name+` > /www/index.html && exec httpd -f -p 127.0.0.1:8080 -h /www"]
    ports: [`+ports+`]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// run --publish: a server on the pod's loopback answers on the host's 127.0.0.1; a second pod
// asking for the same host port is refused at creation and leaves nothing; after the
// supervisor's loss the adopter listens again; once the pod is stopped nothing listens.
func TestPublishedPortReachesThePodsLoopback(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	dir := t.TempDir()
	manifest := func(name string) string { return httpdPod(t, dir, layout, name, "") }
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	t.Cleanup(func() { c.run("rm", "--force", "web"); c.run("rm", "--force", "second") })
	if _, code := c.run("run", "--detach", "--publish", strconv.Itoa(port)+":8080", manifest("web")); code != 0 {
		t.Fatalf("run --detach --publish: exit %d", code)
	}
	var body string
	waitFor(t, "the published port to answer", 30*time.Second, func() bool {
		body, _ = framework.FetchPage(addr)
		return body == "hello from web\n"
	})

	_, stderr, code := c.runErr("run", "--detach", "--publish", strconv.Itoa(port)+":8080", manifest("second"))
	if code != 5 || !strings.Contains(stderr, addr) || !strings.Contains(stderr, "address already in use") {
		t.Errorf("a second pod on the same host port: exit %d, %s; want Conflict (5) naming %s", code, stderr, addr)
	}
	if out, _ := c.run("list"); strings.Contains(out, `"second"`) {
		t.Errorf("the refused pod was created: %s", out)
	}

	sup := readState(t, c.root, "web").Supervisor
	if err := syscall.Kill(sup.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the supervisor to die", 10*time.Second, func() bool { return procstat.StartTime(sup.PID) != sup.StartTime })
	if framework.Accepts(addr) {
		t.Errorf("%s still listens with no supervisor", addr)
	}
	if _, code := c.run("status", "web"); code != 0 {
		t.Fatalf("status (adopting): exit %d", code)
	}
	waitFor(t, "the adopter to listen again", 10*time.Second, func() bool {
		body, _ = framework.FetchPage(addr)
		return body == "hello from web\n"
	})

	if _, code := c.run("stop", "web"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	if _, code := c.run("wait", "--timeout", "30s", "web"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	waitFor(t, "nothing to listen after the pod ended", 10*time.Second, func() bool { return !framework.Accepts(addr) })

	for _, bad := range []string{"8080", "0:8080", "1:70000", "1:80/udp", "nowhere:1:80"} {
		if _, stderr, code := c.runErr("run", "--detach", "--publish", bad, manifest("second")); code != 2 || !strings.Contains(stderr, "--publish") {
			t.Errorf("--publish %s: exit %d, %s; want a usage error", bad, code, stderr)
		}
	}
}

// A manifest's hostPort is published as --publish's ports are: the page answers on
// 127.0.0.1:hostPort (the default hostIP, NET-005) and not on the host's other addresses; a
// hostPort another process holds, or that --publish asks for too, refuses the pod with Conflict
// and creates nothing; once the pod is stopped nothing listens, nor after rm.
func TestNET004_AManifestsHostPortIsPublishedUntilThePodEnds(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	dir := t.TempDir()
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	manifest := func(name string) string {
		return httpdPod(t, dir, layout, name, "{containerPort: 8080, hostPort: "+strconv.Itoa(port)+"}")
	}
	t.Cleanup(func() { c.run("rm", "--force", "web"); c.run("rm", "--force", "second") })

	held, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, code := c.runErr("run", "--detach", manifest("web"))
	held.Close()
	if code != 5 || !strings.Contains(stderr, addr) {
		t.Errorf("a hostPort another process holds: exit %d, %s; want Conflict (5) naming %s", code, stderr, addr)
	}
	if out, _ := c.run("list"); strings.Contains(out, `"web"`) {
		t.Fatalf("the refused pod was created: %s", out)
	}

	if _, code := c.run("run", "--detach", manifest("web")); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	var body string
	waitFor(t, "the hostPort to answer", 30*time.Second, func() bool {
		body, _ = framework.FetchPage(addr)
		return body == "hello from web\n"
	})
	// Listening on 127.0.0.2 (no traffic) succeeds only if the pod's port is not on every address.
	if l, err := net.Listen("tcp", "127.0.0.2:"+strconv.Itoa(port)); err != nil {
		t.Errorf("a hostPort without hostIP is published beyond 127.0.0.1: %v", err)
	} else {
		l.Close()
	}

	_, stderr, code = c.runErr("run", "--detach", manifest("second"))
	if code != 5 || !strings.Contains(stderr, addr) {
		t.Errorf("a second pod with the same hostPort: exit %d, %s; want Conflict (5) naming %s", code, stderr, addr)
	}
	if out, _ := c.run("list"); strings.Contains(out, `"second"`) {
		t.Errorf("the refused pod was created: %s", out)
	}

	if _, code := c.run("stop", "web"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	if _, code := c.run("wait", "--timeout", "30s", "web"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	waitFor(t, "nothing to listen after the pod ended", 10*time.Second, func() bool { return !framework.Accepts(addr) })
	if _, code := c.run("rm", "web"); code != 0 {
		t.Fatalf("rm: exit %d", code)
	}
	if framework.Accepts(addr) {
		t.Errorf("%s listens after rm", addr)
	}

	// --publish asking for the manifest's host address too is refused, and nothing is created.
	_, stderr, code = c.runErr("run", "--detach", "--publish", strconv.Itoa(port)+":8080", manifest("second"))
	if code != 5 || !strings.Contains(stderr, "published twice") {
		t.Errorf("--publish of the manifest's hostPort: exit %d, %s; want Conflict (5), published twice", code, stderr)
	}
	if out, _ := c.run("list"); strings.Contains(out, `"second"`) {
		t.Errorf("the refused pod was created: %s", out)
	}
}
