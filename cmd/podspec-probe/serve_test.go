package main

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"podspec.dev/podspec/conformance/probe"
)

// freeAddr returns a loopback address nothing listens on at the moment.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// requests returns the TypeRequest events received so far.
func requests(srv *probe.Server) []*probe.Request {
	var out []*probe.Request
	for _, ev := range srv.Events() {
		if ev.Type == probe.TypeRequest {
			out = append(out, ev.Request)
		}
	}
	return out
}

func TestWorkloadServesHTTPRoutesAndReportsEachRequest(t *testing.T) {
	addr := freeAddr(t)
	_, srv, _ := startProbe(t, "run", "-loop", "-http", addr,
		"-route", "/ok=204,503", "-route", "/moved=302>/ok", "-route", "/slow=200@300ms")
	waitEvents(t, srv, 1) // start: the server listens before it is sent
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string, hdr ...string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, tt := range []struct {
		path string
		want int
	}{{"/ok?x=1", 204}, {"/ok", 503}, {"/ok", 503}, {"/other", 404}, {"/moved", 302}} {
		if got := get(tt.path, "X-Probe", "yes").StatusCode; got != tt.want {
			t.Fatalf("GET %s: status %d, want %d", tt.path, got, tt.want)
		}
	}
	if loc := get("/moved").Header.Get("Location"); loc != "/ok" {
		t.Fatalf("Location %q, want /ok", loc)
	}
	start := time.Now()
	get("/slow")
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("/slow answered after %v, want at least 300ms", d)
	}
	reqs := requests(srv)
	if len(reqs) != 7 {
		t.Fatalf("%d requests reported, want 7: %+v", len(reqs), reqs)
	}
	first := reqs[0]
	if first.Protocol != "http" || first.Local != addr || first.Path != "/ok?x=1" || first.Status != 204 || first.Headers["X-Probe"] != "yes" || first.Headers["Host"] != addr {
		t.Fatalf("first request reported as %+v", first)
	}
	if reqs[3].Status != 404 {
		t.Fatalf("unrouted path reported as %+v", reqs[3])
	}
}

func TestWorkloadServesHTTPSWithASelfSignedCertificate(t *testing.T) {
	addr := freeAddr(t)
	_, srv, _ := startProbe(t, "run", "-loop", "-https", addr, "-route", "/ok=200")
	waitEvents(t, srv, 1)
	if _, err := http.Get("https://" + addr + "/ok"); err == nil {
		t.Fatal("a client that verifies certificates accepted the self-signed one")
	}
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the test's point
	resp, err := insecure.Get("https://" + addr + "/ok")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if reqs := requests(srv); len(reqs) != 1 || reqs[0].Protocol != "https" || reqs[0].Path != "/ok" {
		t.Fatalf("requests %+v", reqs)
	}
}

func TestWorkloadTCPListenerClosesAfterItsAccepts(t *testing.T) {
	addr := freeAddr(t)
	_, srv, _ := startProbe(t, "run", "-loop", "-tcp", addr+"=2")
	waitEvents(t, srv, 1)
	for i := range 2 {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", i+1, err)
		}
		conn.Close()
	}
	waitEvents(t, srv, 3)
	if conn, err := net.DialTimeout("tcp", addr, 5*time.Second); err == nil {
		conn.Close()
		t.Fatal("a third connection was established after ACCEPTS 2")
	}
	if reqs := requests(srv); len(reqs) != 2 || reqs[0].Protocol != "tcp" || reqs[0].Local != addr {
		t.Fatalf("requests %+v", reqs)
	}
}

func TestWorkloadServesGRPCHealthPerService(t *testing.T) {
	addr := freeAddr(t)
	_, srv, _ := startProbe(t, "run", "-loop", "-grpc", addr, "-grpc-status", "=NOT_SERVING", "-grpc-status", "app=SERVING")
	waitEvents(t, srv, 1)
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for svc, want := range map[string]healthpb.HealthCheckResponse_ServingStatus{"": healthpb.HealthCheckResponse_NOT_SERVING, "app": healthpb.HealthCheckResponse_SERVING} {
		resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || resp.GetStatus() != want {
			t.Fatalf("Check(%q) = %v, %v; want %v", svc, resp, err, want)
		}
	}
	if _, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: "unknown"}); err == nil {
		t.Fatal("Check of an unknown service succeeded")
	}
	var answers []string
	for _, r := range requests(srv) {
		answers = append(answers, r.Service+"="+r.Answer)
	}
	if len(answers) != 3 || !strings.Contains(strings.Join(answers, " "), "unknown=NotFound") {
		t.Fatalf("reported %v", answers)
	}
}

func TestParseServeRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-route", "/x=200"},
		{"-http", "127.0.0.1:1", "-route", "x=200"},
		{"-http", "127.0.0.1:1", "-route", "/x=99"},
		{"-http", "127.0.0.1:1", "-route", "/x=200@soon"},
		{"-tcp", "127.0.0.1:1=0"},
		{"-http", "8080"},
		{"-grpc", "127.0.0.1:1", "-grpc-status", "app=MAYBE"},
		{"-grpc-status", "app=SERVING"},
	} {
		if _, err := parseWorkload(args); err == nil {
			t.Errorf("parseWorkload(%q) accepted", args)
		}
	}
}
