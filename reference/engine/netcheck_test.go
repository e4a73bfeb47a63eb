package engine_test

import (
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/reference/sandbox"
)

// idle is a container command that waits for its stop signal.
const idle = `trap 'exit 0' TERM; while true; do sleep 0.05; done`

// TestHOOK015_HOOK016_HOOK017_HOOK019_NetworkChecksRunInThePodsNamespace runs httpGet and tcpSocket probes and an
// httpGet hook against busybox httpd on the pod's loopback: a 200 makes a container Ready
// (HOOK-016) and a named port resolves to its containerPort (HOOK-015), a 404 fails a probe
// (HOOK-016) and a hook (HOOK-019), a refused connection fails a tcpSocket probe until the
// container is killed Unhealthy (HOOK-017), a server listening only on the host's loopback is
// not reached (HOOK-015), and an httpGet hook answered 200 succeeds (HOOK-019).
func TestHOOK015_HOOK016_HOOK017_HOOK019_NetworkChecksRunInThePodsNamespace(t *testing.T) {
	t.Parallel()
	host, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}), ReadHeaderTimeout: time.Second}
	go srv.Serve(host)
	t.Cleanup(func() { srv.Close() })
	hostPort := strconv.Itoa(host.Addr().(*net.TCPAddr).Port)

	tp := startPod(t, `
metadata: {name: netcheck}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
  - name: web
    image: IMAGE
    command: [sh, -c, "mkdir -p /tmp/www && echo ok > /tmp/www/ok && exec httpd -f -p 8080 -h /tmp/www"]
    ports: [{name: http, containerPort: 8080}]
    readinessProbe: {httpGet: {path: /ok, port: http, httpHeaders: [{name: X-Check, value: "1"}]}, periodSeconds: 1}
    livenessProbe: {tcpSocket: {port: http}, periodSeconds: 1}
  - name: notfound
    image: IMAGE
    command: [sh, -c, "`+idle+`"]
    livenessProbe: {httpGet: {path: /missing, port: 8080}, initialDelaySeconds: 2, periodSeconds: 1, failureThreshold: 1}
  - name: refused
    image: IMAGE
    command: [sh, -c, "`+idle+`"]
    livenessProbe: {tcpSocket: {port: 8081}, periodSeconds: 1, failureThreshold: 2}
  - name: hostonly
    image: IMAGE
    command: [sh, -c, "`+idle+`"]
    livenessProbe: {httpGet: {path: /, port: `+hostPort+`}, periodSeconds: 1, failureThreshold: 1}
  - name: hook
    image: IMAGE
    command: [sh, -c, "`+idle+`"]
    dependsOn: [{name: web, condition: Ready}]
    lifecycle: {postStart: {httpGet: {path: /missing, port: 8080}}}
  - name: hookok
    image: IMAGE
    command: [sh, -c, "`+idle+`"]
    dependsOn: [{name: web, condition: Ready}]
    lifecycle: {postStart: {httpGet: {path: /ok, port: 8080}}}
`)
	defer tp.stop(nil, true)
	tp.waitEvent(30*time.Second, "web Ready", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventContainerReady && ev.Container == "web"
	})
	tp.waitEvent(30*time.Second, "refused killed Unhealthy", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventContainerExited && ev.Container == "refused" && ev.Reason == "Unhealthy"
	})
	tp.waitEvent(30*time.Second, "a 404 liveness failure of notfound", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventProbeFailed && ev.Container == "notfound" && strings.Contains(ev.Message, "HTTP status 404")
	})
	tp.waitEvent(30*time.Second, "hostonly killed Unhealthy", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventContainerExited && ev.Container == "hostonly" && ev.Reason == "Unhealthy"
	})
	tp.waitEvent(30*time.Second, "the failed postStart hook of hook", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventHookFinished && ev.Container == "hook" && ev.Result == "Failed" && strings.Contains(ev.Message, "HTTP status 404")
	})
	tp.waitEvent(30*time.Second, "the postStart hook of hookok succeeded", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventHookFinished && ev.Container == "hookok" && ev.Result == "Succeeded"
	})
	for _, ev := range tp.events() {
		switch {
		case ev.Type == runtimev1.EventProbeFailed && ev.Container == "web":
			t.Errorf("web's probe failed: %s; events:\n%s", ev.Message, tp.timeline())
		}
	}
}

// TestHOOK018_GRPCProbeCountsServingOnly serves the gRPC health checking protocol on the pod's
// loopback (from the test process, on a thread that joined the pod's network namespace) and
// checks that a grpc probe of a SERVING service makes its container Ready and one of a
// NOT_SERVING service fails.
func TestHOOK018_GRPCProbeCountsServingOnly(t *testing.T) {
	t.Parallel()
	tp := startPod(t, `
metadata: {name: grpccheck}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
  - name: serving
    image: IMAGE
    command: [sh, -c, "`+idle+`"]
    readinessProbe: {grpc: {port: 9090}, periodSeconds: 1}
  - name: notserving
    image: IMAGE
    command: [sh, -c, "`+idle+`"]
    livenessProbe: {grpc: {port: 9090, service: down}, initialDelaySeconds: 3, periodSeconds: 1, failureThreshold: 1}
`)
	defer tp.stop(nil, true)
	tp.waitEvent(30*time.Second, "PodStarted", func(ev runtimev1.Event) bool { return ev.Type == runtimev1.EventPodStarted })
	lis, err := sandbox.ListenIn(filepath.Join(tp.p.Dir, "sandbox", "net"), "tcp", "127.0.0.1:9090")
	if err != nil {
		t.Fatalf("listen in the pod's network namespace: %v", err)
	}
	defer lis.Close()
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus("down", healthpb.HealthCheckResponse_NOT_SERVING)
	gs := grpc.NewServer()
	healthpb.RegisterHealthServer(gs, hs)
	go gs.Serve(lis)
	defer gs.Stop()
	tp.waitEvent(30*time.Second, "serving Ready", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventContainerReady && ev.Container == "serving"
	})
	tp.waitEvent(30*time.Second, "a NOT_SERVING liveness failure of notserving", func(ev runtimev1.Event) bool {
		return ev.Type == runtimev1.EventProbeFailed && ev.Container == "notserving" && strings.Contains(ev.Message, "NOT_SERVING")
	})
}
