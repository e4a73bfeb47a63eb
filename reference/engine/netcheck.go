package engine

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"podspec.dev/podspec/api/v1alpha1"
)

// Network handlers: httpGet, tcpSocket and grpc probes and httpGet hooks. Every connection is
// made from inside the pod's network namespace, through the backend's Dial (HOOK-015), so a
// check reaches the pod's loopback and nothing else (SEC-009).

// userAgent is the User-Agent of httpGet and grpc checks (an httpHeaders entry may replace it).
const userAgent = "podspec-runtime/" + v1alpha1.Version

// maxRedirects is how many redirects to the same host an httpGet check follows, as the kubelet.
const maxRedirects = 10

// maxBodyRead is how much of a response body an httpGet check reads before it closes the
// connection, as the kubelet (10 KiB).
const maxBodyRead = 10 << 10

// checkAddress resolves the IP:port a network handler connects to (HOOK-015): host is an IP
// address, or empty or "localhost" for the pod's loopback 127.0.0.1; a named port is the
// container's port of that name.
func checkAddress(c *v1alpha1.Container, host string, port v1alpha1.PortRef) (string, error) {
	ip := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	if host != "" && host != "localhost" {
		a, err := netip.ParseAddr(host)
		if err != nil {
			return "", fmt.Errorf("host %q is not an IP address (the pod's network namespace has no name resolution)", host)
		}
		ip = a
	}
	n := port.Number
	if port.IsNamed() {
		n = 0
		for _, cp := range c.Ports {
			if cp.Name == port.Name {
				n = cp.ContainerPort
				break
			}
		}
		if n == 0 {
			return "", fmt.Errorf("the container has no port named %q", port.Name)
		}
	}
	if n < 1 || n > 65535 {
		return "", fmt.Errorf("port %d is out of range", n)
	}
	return netip.AddrPortFrom(ip, uint16(n)).String(), nil
}

// podDial returns a dial function that connects from inside the pod's network namespace; it
// maps the host name localhost (in a redirect) to 127.0.0.1 and refuses other names.
func (e *Engine) podDial() func(ctx context.Context, address string) (net.Conn, error) {
	e.mu.Lock()
	sb := e.st.Sandbox
	e.mu.Unlock()
	return func(ctx context.Context, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		if host == "localhost" {
			address = net.JoinHostPort("127.0.0.1", port)
		} else if _, err := netip.ParseAddr(host); err != nil {
			// A name would be resolved by goroutines on other threads, in the host's namespace.
			return nil, fmt.Errorf("dial %s: not an IP address (the pod's network namespace has no name resolution)", address)
		}
		return e.be.Dial(ctx, e.info, sb, address)
	}
}

// httpStatusError is nil for a status from 200 to 399, the successes of an httpGet handler
// (HOOK-016, HOOK-019), and says what failed otherwise.
func httpStatusError(code int) error {
	if code < 200 || code >= 400 {
		return fmt.Errorf("HTTP status %d", code)
	}
	return nil
}

// httpGetStatus makes an httpGet handler's request, bounded by ctx, and returns the status of
// the response, after following redirects as the kubelet does.
func (e *Engine) httpGetStatus(ctx context.Context, c *v1alpha1.Container, h *v1alpha1.HTTPGetAction) (int, error) {
	addr, err := checkAddress(c, h.Host, h.Port)
	if err != nil {
		return 0, err
	}
	scheme := "http"
	if h.Scheme == v1alpha1.URISchemeHTTPS {
		scheme = "https"
	}
	u := &url.URL{Scheme: scheme, Host: addr, Path: h.Path}
	if h.Path == "" {
		u.Path = "/"
	} else if pu, err := url.Parse(h.Path); err == nil {
		// The path may carry a query, as the kubelet allows.
		u.Path, u.RawQuery = pu.Path, pu.RawQuery
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "*/*")
	for _, hd := range h.HTTPHeaders {
		if http.CanonicalHeaderKey(hd.Name) == "Host" {
			req.Host = hd.Value
			continue
		}
		req.Header.Add(hd.Name, hd.Value)
	}
	dial := e.podDial()
	client := &http.Client{
		Transport: &http.Transport{
			Proxy:              nil,
			DisableKeepAlives:  true,
			DisableCompression: true,
			// As the kubelet: the server's certificate is not verified.
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // HOOK-016
			DialContext: func(ctx context.Context, _, address string) (net.Conn, error) {
				return dial(ctx, address)
			},
		},
		// As the kubelet: redirects to the same host are followed (at most 10); the response
		// of a redirect to another host is the answer.
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Hostname() != via[0].URL.Hostname() {
				return http.ErrUseLastResponse
			}
			if len(via) >= maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			return nil
		},
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBodyRead))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// tcpSocketOnce returns nil exactly when a TCP connection is established within ctx (HOOK-017).
func (e *Engine) tcpSocketOnce(ctx context.Context, c *v1alpha1.Container, t *v1alpha1.TCPSocketAction) error {
	addr, err := checkAddress(c, t.Host, t.Port)
	if err != nil {
		return err
	}
	conn, err := e.podDial()(ctx, addr)
	if err != nil {
		return err
	}
	return conn.Close()
}

// grpcOnce calls grpc.health.v1.Health/Check with the handler's service and returns nil
// exactly when the answer is SERVING within ctx (HOOK-018). The client is gRPC-Go's, the
// implementation the kubelet uses for the same check.
func (e *Engine) grpcOnce(ctx context.Context, c *v1alpha1.Container, g *v1alpha1.GRPCAction) error {
	addr, err := checkAddress(c, "", v1alpha1.PortNumber(g.Port))
	if err != nil {
		return err
	}
	dial := e.podDial()
	conn, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(dial),
		grpc.WithUserAgent(userAgent))
	if err != nil {
		return fmt.Errorf("gRPC client: %w", err)
	}
	defer conn.Close()
	var service string
	if g.Service != nil {
		service = *g.Service
	}
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return fmt.Errorf("gRPC health check: %w", err)
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("gRPC health status %s", resp.GetStatus())
	}
	return nil
}

// networkProbeOnce runs one attempt of an httpGet, tcpSocket or grpc probe, bounded by pctx.
func (e *Engine) networkProbeOnce(pctx context.Context, c *v1alpha1.Container, p *v1alpha1.Probe) error {
	switch {
	case p.HTTPGet != nil:
		code, err := e.httpGetStatus(pctx, c, p.HTTPGet)
		if err != nil {
			return err
		}
		return httpStatusError(code)
	case p.TCPSocket != nil:
		return e.tcpSocketOnce(pctx, c, p.TCPSocket)
	case p.GRPC != nil:
		return e.grpcOnce(pctx, c, p.GRPC)
	}
	return errors.New("probe has no handler")
}

// httpGetHook runs an httpGet hook, bounded by ctx (HOOK-019).
func (e *Engine) httpGetHook(ctx context.Context, c *v1alpha1.Container, h *v1alpha1.HTTPGetAction) error {
	code, err := e.httpGetStatus(ctx, c, h)
	if err != nil {
		return err
	}
	return httpStatusError(code)
}
