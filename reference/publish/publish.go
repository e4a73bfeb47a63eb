// Package publish is the reference runtime's published ports: a TCP forwarder, run by the pod's
// supervisor, that accepts connections on host addresses and connects each to a port on the
// loopback interface of the pod's network namespace, which has no other interface (SEC-009).
//
// Why a forwarder in the supervisor and not a CNI network: the pod's namespace stays
// loopback-only, so nothing of the host's network (a bridge, addresses, firewall rules) is made
// or must be cleaned up after a crash: the listeners are the supervisor's sockets and end with
// it. The cost: every byte is copied through the supervisor (docs/benchmarks.md measures it),
// the container sees connections from 127.0.0.1, and while no supervisor runs (one lost, not
// yet adopted) the host ports refuse connections.
package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
)

// Port is one published port: connections to HostIP:HostPort reach ContainerPort on the pod's
// loopback interface.
type Port struct {
	HostIP        string `json:"hostIP"`
	HostPort      int32  `json:"hostPort"`
	ContainerPort int32  `json:"containerPort"`
	// Protocol is TCP: the only one forwarded.
	Protocol string `json:"protocol"`
}

// DefaultHostIP is the host address of a port published without one: the host's loopback, so
// that publishing never exposes a pod beyond the machine unless asked to (NET-005).
const DefaultHostIP = v1alpha1.DefaultHostIP

// HostAddress is host:port of p's listener.
func (p Port) HostAddress() string {
	return net.JoinHostPort(p.HostIP, strconv.Itoa(int(p.HostPort)))
}

// String is p as --publish writes it.
func (p Port) String() string {
	return fmt.Sprintf("%s:%d/%s", p.HostAddress(), p.ContainerPort, strings.ToLower(p.Protocol))
}

// FromPod is the ports a pod's manifest publishes: each container port with a hostPort (NET-004),
// on its hostIP or 127.0.0.1 (NET-005).
func FromPod(spec *v1alpha1.PodSpec) []Port {
	var out []Port
	for _, list := range [][]v1alpha1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range list {
			for _, cp := range c.Ports {
				if cp.HostPort != 0 {
					out = append(out, Port{HostIP: cp.PublishedHostIP(), HostPort: cp.HostPort, ContainerPort: cp.ContainerPort, Protocol: "TCP"})
				}
			}
		}
	}
	return out
}

// Parse reads a --publish value, [ADDR:]HOSTPORT:CONTAINERPORT[/tcp] (ADDR an IPv4 address, or an
// IPv6 one in brackets).
func Parse(s string) (Port, error) {
	p := Port{HostIP: DefaultHostIP, Protocol: "TCP"}
	rest, proto, hasProto := strings.Cut(s, "/")
	if hasProto {
		switch strings.ToLower(proto) {
		case "tcp":
		case "udp", "sctp":
			return p, fmt.Errorf("%q: only TCP ports are published (the runtime forwards connections); %s is not", s, strings.ToUpper(proto))
		default:
			return p, fmt.Errorf("%q: protocol %q: want tcp", s, proto)
		}
	}
	i := strings.LastIndex(rest, ":")
	if i < 0 {
		return p, fmt.Errorf("%q: want [ADDR:]HOSTPORT:CONTAINERPORT[/tcp]", s)
	}
	hostPart, containerPart := rest[:i], rest[i+1:]
	if j := strings.LastIndex(hostPart, ":"); j >= 0 {
		addr := strings.TrimSuffix(strings.TrimPrefix(hostPart[:j], "["), "]")
		if net.ParseIP(addr) == nil {
			return p, fmt.Errorf("%q: host address %q is not an IP address", s, addr)
		}
		p.HostIP, hostPart = v1alpha1.CanonicalIP(addr), hostPart[j+1:]
	}
	var err error
	if p.HostPort, err = portNumber(hostPart); err != nil {
		return p, fmt.Errorf("%q: host port: %v", s, err)
	}
	if p.ContainerPort, err = portNumber(containerPart); err != nil {
		return p, fmt.Errorf("%q: container port: %v", s, err)
	}
	return p, nil
}

func portNumber(s string) (int32, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("%q is not a port number (1-65535)", s)
	}
	return int32(n), nil
}

// Check reports whether every host address can be listened on now, all at once: the error of the
// first that cannot, naming it. So it refuses an address another process holds, one address
// published twice (in whatever spelling: Parse and FromPod give one), and two that overlap on the
// host (0.0.0.0 and 127.0.0.1 with one port), which the forwarder could not all listen on.
func Check(ports []Port) error {
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	seen := map[string]bool{}
	for _, p := range ports {
		if seen[p.HostAddress()] {
			return fmt.Errorf("host address %s is published twice", p.HostAddress())
		}
		seen[p.HostAddress()] = true
		l, err := net.Listen("tcp", p.HostAddress())
		if err != nil {
			return fmt.Errorf("publish %s: %w", p, err)
		}
		held = append(held, l)
	}
	return nil
}

// Dialer connects to an address inside the pod's network namespace (sandbox.DialIn).
type Dialer func(ctx context.Context, network, address string) (net.Conn, error)

// Forwarder holds the listeners of a pod's published ports and the connections they carry.
// The zero Forwarder forwards nothing; its Close returns at once.
type Forwarder struct {
	dial      Dialer
	logf      func(string, ...any)
	listeners []net.Listener
	wg        sync.WaitGroup
	mu        sync.Mutex
	conns     map[net.Conn]bool
	closed    bool
}

// Start listens on every port's host address and forwards what it accepts through dial to the
// port's container port on 127.0.0.1. If a host address cannot be listened on, nothing is left
// listening and the error names it.
func Start(ports []Port, dial Dialer, logf func(string, ...any)) (*Forwarder, error) {
	f := &Forwarder{dial: dial, logf: logf, conns: map[net.Conn]bool{}}
	for _, p := range ports {
		l, err := net.Listen("tcp", p.HostAddress())
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("publish %s: %w", p, err)
		}
		f.listeners = append(f.listeners, l)
		f.wg.Add(1)
		go f.serve(l, net.JoinHostPort("127.0.0.1", strconv.Itoa(int(p.ContainerPort))))
	}
	return f, nil
}

// dialTimeout bounds the connection to the container's port.
const dialTimeout = 10 * time.Second

func (f *Forwarder) serve(l net.Listener, target string) {
	defer f.wg.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) && f.logf != nil {
				f.logf("published port %s: %v", l.Addr(), err)
			}
			return
		}
		if !f.track(c) {
			c.Close()
			return
		}
		f.wg.Add(1)
		go f.pipe(c, target)
	}
}

// pipe connects c to target in the pod and copies both ways until either side closes.
func (f *Forwarder) pipe(c net.Conn, target string) {
	defer f.wg.Done()
	defer f.untrack(c)
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	p, err := f.dial(ctx, "tcp", target)
	cancel()
	if err != nil {
		return // the client sees the connection closed: nothing listens on the container port
	}
	if !f.track(p) {
		p.Close()
		return
	}
	defer f.untrack(p)
	done := make(chan struct{}, 2)
	half := func(dst, src net.Conn) {
		io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			tc.CloseWrite() // the other way may still carry an answer
		}
		done <- struct{}{}
	}
	go half(p, c)
	go half(c, p)
	<-done
	<-done
}

func (f *Forwarder) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.conns[c] = true
	return true
}

func (f *Forwarder) untrack(c net.Conn) {
	c.Close()
	f.mu.Lock()
	delete(f.conns, c)
	f.mu.Unlock()
}

// Addrs are the addresses it listens on.
func (f *Forwarder) Addrs() []net.Addr {
	out := make([]net.Addr, len(f.listeners))
	for i, l := range f.listeners {
		out[i] = l.Addr()
	}
	return out
}

// Close stops listening, closes every forwarded connection and waits until all are done.
func (f *Forwarder) Close() error {
	f.mu.Lock()
	f.closed = true
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	for _, l := range f.listeners {
		l.Close()
	}
	f.wg.Wait()
	return nil
}
