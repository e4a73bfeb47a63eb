package registry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// transport is the HTTP transport for one registry: the system's CAs plus the registry's own
// from the certs.d directories, the timeouts, and plain HTTP refused unless allowed (IMG-024).
func (s *Store) transport(host string) (http.RoundTripper, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	dirs := s.CertsDirs
	if dirs == nil {
		dirs = DefaultCertsDirs
	}
	for _, d := range dirs {
		cas, _ := filepath.Glob(filepath.Join(d, host, "*.crt"))
		for _, ca := range cas {
			pem, err := os.ReadFile(ca)
			if err != nil {
				return nil, fmt.Errorf("registry CA %s: %w", ca, err)
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("registry CA %s: no PEM certificate in it", ca)
			}
		}
	}
	timeout := s.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		ExpectContinueTimeout: time.Second,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
	}
	return plainHTTPGuard{next: idleGuard{next: t, idle: timeout}, allowed: s.plainHTTPAllowed}, nil
}

// plainHTTPAllowed reports whether a registry may be reached over plain HTTP: a loopback one,
// or one the user named (IMG-024).
func (s *Store) plainHTTPAllowed(host string) bool {
	if slices.Contains(s.Insecure, host) {
		return true
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		if slices.Contains(s.Insecure, h) {
			return true
		}
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// plainHTTPGuard refuses plain HTTP requests to registries that may not have them: the
// registry client falls back to HTTP on its own for private addresses, which IMG-024 forbids.
type plainHTTPGuard struct {
	next    http.RoundTripper
	allowed func(host string) bool
}

func (g plainHTTPGuard) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme == "http" && !g.allowed(r.URL.Host) {
		return nil, fmt.Errorf("%w: %s is not a loopback registry and is not named with --insecure-registry", errPlainHTTP, r.URL.Host)
	}
	return g.next.RoundTrip(r)
}

// idleGuard bounds the wait for each part of a response's body: a registry that sends part of a
// blob and then stops answering fails the request once it has sent nothing for idle, while a
// slow transfer that keeps sending lasts as long as it takes. (http.Transport bounds only the
// wait for the headers; http.Client.Timeout would bound the whole transfer.)
type idleGuard struct {
	next http.RoundTripper
	idle time.Duration
}

func (g idleGuard) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(r.Context())
	resp, err := g.next.RoundTrip(r.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &idleBody{rc: resp.Body, idle: g.idle, cancel: cancel}
	return resp, nil
}

// idleBody is a response body whose every Read must return within idle; when one does not, the
// request is cancelled, which aborts its connection, and the Read fails with a timeout.
type idleBody struct {
	rc     io.ReadCloser
	idle   time.Duration
	cancel context.CancelFunc

	mu      sync.Mutex
	stalled bool
}

func (b *idleBody) Read(p []byte) (int, error) {
	t := time.AfterFunc(b.idle, func() {
		b.mu.Lock()
		b.stalled = true
		b.mu.Unlock()
		b.cancel()
	})
	n, err := b.rc.Read(p)
	t.Stop()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stalled {
		return n, fmt.Errorf("%w: no data from the registry for %v", os.ErrDeadlineExceeded, b.idle)
	}
	return n, err
}

func (b *idleBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}
