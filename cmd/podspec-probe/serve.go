package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"podspec.dev/podspec/conformance/probe"
)

// The servers a workload runs for httpGet, tcpSocket and grpc handlers to reach: each reports
// every request or connection it gets (TypeRequest) before it answers, so that the report
// precedes whatever the runtime does with the answer.

// answer is one HTTP answer of a route's plan: a status, sent after a delay, with a Location.
type answer struct {
	status   int
	delay    time.Duration
	location string
}

// route is an HTTP path's plan: request n gets answers[min(n, len)-1] (the last repeats).
type route struct {
	answers []answer
	mu      sync.Mutex
	served  int
}

// next returns the answer to the route's next request.
func (r *route) next() answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.served++
	return r.answers[min(r.served, len(r.answers))-1]
}

// tcpListen is a -tcp listener: its address and how many connections it accepts before it
// closes (0: no limit).
type tcpListen struct {
	addr    string
	accepts int
}

// serveConfig is what a workload serves.
type serveConfig struct {
	http       []string
	https      []string
	routes     map[string]*route
	tcp        []tcpListen
	grpc       []string
	grpcStatus map[string]healthpb.HealthCheckResponse_ServingStatus
}

// empty reports whether the workload serves nothing.
func (c *serveConfig) empty() bool {
	return len(c.http) == 0 && len(c.https) == 0 && len(c.tcp) == 0 && len(c.grpc) == 0
}

// parseServe checks and converts the -http, -https, -route, -tcp, -grpc and -grpc-status flags.
func parseServe(httpAddrs, httpsAddrs, routes, tcps, grpcAddrs, grpcStatus []string) (*serveConfig, error) {
	c := &serveConfig{http: httpAddrs, https: httpsAddrs, grpc: grpcAddrs, routes: map[string]*route{},
		grpcStatus: map[string]healthpb.HealthCheckResponse_ServingStatus{}}
	for _, a := range append(append(append([]string(nil), httpAddrs...), httpsAddrs...), grpcAddrs...) {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return nil, fmt.Errorf("server address %q: want IP:PORT", a)
		}
	}
	if len(routes) > 0 && len(httpAddrs)+len(httpsAddrs) == 0 {
		return nil, errors.New("-route needs -http or -https")
	}
	for _, r := range routes {
		path, plan, ok := strings.Cut(r, "=")
		if !ok || !strings.HasPrefix(path, "/") || plan == "" {
			return nil, fmt.Errorf("-route %q: want /PATH=PLAN", r)
		}
		rt := &route{}
		for _, s := range strings.Split(plan, ",") {
			a, err := parseAnswer(s)
			if err != nil {
				return nil, fmt.Errorf("-route %q: %w", r, err)
			}
			rt.answers = append(rt.answers, a)
		}
		c.routes[path] = rt
	}
	for _, t := range tcps {
		addr, n, hasN := strings.Cut(t, "=")
		l := tcpListen{addr: addr}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("-tcp %q: want IP:PORT[=ACCEPTS]", t)
		}
		if hasN {
			k, err := strconv.Atoi(n)
			if err != nil || k < 1 {
				return nil, fmt.Errorf("-tcp %q: ACCEPTS must be a positive number", t)
			}
			l.accepts = k
		}
		c.tcp = append(c.tcp, l)
	}
	if len(grpcStatus) > 0 && len(grpcAddrs) == 0 {
		return nil, errors.New("-grpc-status needs -grpc")
	}
	for _, g := range grpcStatus {
		svc, st, ok := strings.Cut(g, "=")
		v, known := healthpb.HealthCheckResponse_ServingStatus_value[st]
		if !ok || !known {
			return nil, fmt.Errorf("-grpc-status %q: want SERVICE=SERVING|NOT_SERVING", g)
		}
		c.grpcStatus[svc] = healthpb.HealthCheckResponse_ServingStatus(v)
	}
	return c, nil
}

// parseAnswer parses CODE[@DELAY][>LOCATION].
func parseAnswer(s string) (answer, error) {
	var a answer
	s, a.location, _ = strings.Cut(s, ">")
	code, delay, hasDelay := strings.Cut(s, "@")
	n, err := strconv.Atoi(code)
	if err != nil || n < 200 || n > 999 {
		return a, fmt.Errorf("answer %q: want a status from 200 to 999, then @DELAY and >LOCATION if any", s)
	}
	a.status = n
	if hasDelay {
		if a.delay, err = time.ParseDuration(delay); err != nil {
			return a, fmt.Errorf("answer %q: %w", s, err)
		}
	}
	return a, nil
}

// startServers binds every listener (so that a port is taken, or the workload fails, before it
// reports its start) and serves them until the process exits.
func startServers(c *serveConfig, em *emitter) error {
	for _, addr := range c.http {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("-http: %w", err)
		}
		srv := &http.Server{Handler: httpHandler(c.routes, addr, em), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
	}
	if len(c.https) > 0 {
		cert, err := selfSigned()
		if err != nil {
			return fmt.Errorf("-https: %w", err)
		}
		for _, addr := range c.https {
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("-https: %w", err)
			}
			srv := &http.Server{Handler: httpHandler(c.routes, addr, em), ReadHeaderTimeout: 10 * time.Second,
				TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}}
			go func() { _ = srv.ServeTLS(ln, "", "") }()
		}
	}
	for _, t := range c.tcp {
		ln, err := net.Listen("tcp", t.addr)
		if err != nil {
			return fmt.Errorf("-tcp: %w", err)
		}
		go acceptTCP(ln, t, em)
	}
	for _, addr := range c.grpc {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("-grpc: %w", err)
		}
		go func() { _ = grpcHealthServer(c.grpcStatus, addr, em).Serve(ln) }()
	}
	return nil
}

// httpHandler answers each request with the next answer of its path's route (404 for a path
// without one), after reporting it.
func httpHandler(routes map[string]*route, local string, em *emitter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := answer{status: http.StatusNotFound}
		if rt := routes[r.URL.Path]; rt != nil {
			a = rt.next()
		}
		headers := map[string]string{}
		for k, v := range r.Header {
			headers[k] = strings.Join(v, ", ")
		}
		if r.Host != "" {
			headers["Host"] = r.Host
		}
		proto := "http"
		if r.TLS != nil {
			proto = "https"
		}
		em.emit(probe.Event{Type: probe.TypeRequest, Request: &probe.Request{
			Protocol: proto, Local: local, Path: r.RequestURI, Headers: headers, Status: a.status}})
		time.Sleep(a.delay)
		if a.location != "" {
			w.Header().Set("Location", a.location)
		}
		w.WriteHeader(a.status)
	})
}

// selfSigned makes a certificate for 127.0.0.1 signed by its own key: a client that verifies
// certificates refuses it, as an httpGet check must not (HOOK-016).
func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "podspec-probe"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// acceptTCP reports and closes each connection, and closes the listener after t.accepts of them.
func acceptTCP(ln net.Listener, t tcpListen, em *emitter) {
	for n := 1; ; n++ {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		if t.accepts > 0 && n >= t.accepts {
			ln.Close() // no later connection can be established
		}
		em.emit(probe.Event{Type: probe.TypeRequest, Request: &probe.Request{Protocol: "tcp", Local: t.addr}})
		conn.Close()
		if t.accepts > 0 && n >= t.accepts {
			return
		}
	}
}

// grpcHealthServer is gRPC-Go's grpc.health.v1 Health service with the given statuses (the
// service "" is SERVING unless set), reporting each Check it answers.
func grpcHealthServer(statuses map[string]healthpb.HealthCheckResponse_ServingStatus, local string, em *emitter) *grpc.Server {
	hs := health.NewServer()
	for svc, st := range statuses {
		hs.SetServingStatus(svc, st)
	}
	report := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		resp, err := handler(ctx, req)
		r := &probe.Request{Protocol: "grpc", Local: local, Path: info.FullMethod}
		if hc, ok := req.(*healthpb.HealthCheckRequest); ok {
			r.Service = hc.GetService()
		}
		if hr, ok := resp.(*healthpb.HealthCheckResponse); ok && err == nil {
			r.Answer = hr.GetStatus().String()
		} else {
			r.Answer = status.Code(err).String()
		}
		em.emit(probe.Event{Type: probe.TypeRequest, Request: r})
		return resp, err
	}
	s := grpc.NewServer(grpc.UnaryInterceptor(report))
	healthpb.RegisterHealthServer(s, hs)
	return s
}

// serveOrExit starts the servers; a workload that cannot serve what it was asked to says why and
// exits 2, so that a test fails on the cause rather than on a probe that never succeeds.
func serveOrExit(c *serveConfig, em *emitter) {
	if c.empty() {
		return
	}
	if err := startServers(c, em); err != nil {
		fmt.Fprintln(os.Stderr, "podspec-probe:", err)
		os.Exit(2)
	}
}
