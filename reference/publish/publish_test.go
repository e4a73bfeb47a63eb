package publish

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Port{
		"8080:80":                    {HostIP: "127.0.0.1", HostPort: 8080, ContainerPort: 80, Protocol: "TCP"},
		"0.0.0.0:8080:80":            {HostIP: "0.0.0.0", HostPort: 8080, ContainerPort: 80, Protocol: "TCP"},
		"[::1]:8443:443/tcp":         {HostIP: "::1", HostPort: 8443, ContainerPort: 443, Protocol: "TCP"},
		"1:65535/TCP":                {HostIP: "127.0.0.1", HostPort: 1, ContainerPort: 65535, Protocol: "TCP"},
		"[::0]:8080:80":              {HostIP: "::", HostPort: 8080, ContainerPort: 80, Protocol: "TCP"},
		"[::ffff:127.0.0.1]:8080:80": {HostIP: "127.0.0.1", HostPort: 8080, ContainerPort: 80, Protocol: "TCP"},
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "80", ":80", "80:", "a:80", "0:80", "80:0", "65536:80", "1:2:3:4", "host:1:2", "1:2/udp", "1:2/sctp", "1:2/icmp"} {
		if p, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", in, p)
		}
	}
}

// Any value parses to a valid port or an error, and a valid port prints back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"8080:80", "[::1]:1:2/tcp", "1.2.3.4:5:6", "x", "::::", "1:2/udp"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			return
		}
		if p.HostPort < 1 || p.ContainerPort < 1 || net.ParseIP(p.HostIP) == nil || p.Protocol != "TCP" {
			t.Fatalf("Parse(%q) = %+v: not a valid port", s, p)
		}
		again, err := Parse(p.String())
		if err != nil || again != p {
			t.Fatalf("Parse(%q) = %+v prints as %q, which parses to %+v, %v", s, p, p.String(), again, err)
		}
	})
}

// Check refuses every pair of ports the forwarder could not listen on together: one host address
// in two spellings (one from the manifest, one from --publish), and a wildcard address beside a
// specific one with the same port. Each port alone can be listened on.
func TestCheckRefusesPortsThatCannotAllBeListenedOn(t *testing.T) {
	port := freePort(t)
	manifest := FromPod(&v1alpha1.PodSpec{Containers: []v1alpha1.Container{{Name: "a", Ports: []v1alpha1.ContainerPort{
		{ContainerPort: 80, HostPort: port, HostIP: "::0"}}}}})
	flag, err := Parse(fmt.Sprintf("[::]:%d:81", port))
	if err != nil {
		t.Fatal(err)
	}
	for name, ports := range map[string][]Port{
		"one address, two spellings": {manifest[0], flag},
		"0.0.0.0 beside 127.0.0.1":   {{HostIP: "0.0.0.0", HostPort: port, ContainerPort: 80, Protocol: "TCP"}, {HostIP: "127.0.0.1", HostPort: port, ContainerPort: 81, Protocol: "TCP"}},
		"127.0.0.1 beside 0.0.0.0":   {{HostIP: "127.0.0.1", HostPort: port, ContainerPort: 80, Protocol: "TCP"}, {HostIP: "0.0.0.0", HostPort: port, ContainerPort: 81, Protocol: "TCP"}},
	} {
		for _, p := range ports {
			if err := Check([]Port{p}); err != nil {
				t.Fatalf("%s: %s alone: %v", name, p, err)
			}
		}
		if err := Check(ports); err == nil {
			t.Errorf("%s: Check(%v) = nil, want an error: the forwarder cannot listen on both", name, ports)
		}
	}
	// Nothing is left listening: the port can be listened on again.
	l, err := net.Listen("tcp", net.JoinHostPort("0.0.0.0", strconv.Itoa(int(port))))
	if err != nil {
		t.Fatalf("Check left port %d held: %v", port, err)
	}
	l.Close()
}

// freePort is a TCP port nothing listens on, on any address, now.
func freePort(t *testing.T) int32 {
	t.Helper()
	l, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return int32(l.Addr().(*net.TCPAddr).Port)
}

// The forwarder carries a connection both ways, refuses nothing it listens on, and Close stops
// listening and ends the connections it carries.
func TestForwarderCarriesAndCloses(t *testing.T) {
	backend, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	go func() {
		for {
			c, err := backend.Accept()
			if err != nil {
				return
			}
			go func() {
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						c.Close()
						return
					}
					c.Write([]byte("echo " + line))
				}
			}()
		}
	}()
	port := int32(backend.Addr().(*net.TCPAddr).Port)
	free, _ := net.Listen("tcp", "127.0.0.1:0")
	hostPort := int32(free.Addr().(*net.TCPAddr).Port)
	free.Close()
	var d net.Dialer
	fwd, err := Start([]Port{{HostIP: "127.0.0.1", HostPort: hostPort, ContainerPort: port, Protocol: "TCP"}}, d.DialContext, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Start([]Port{{HostIP: "127.0.0.1", HostPort: hostPort, ContainerPort: port, Protocol: "TCP"}}, d.DialContext, t.Logf); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("a second forwarder on the same host port: %v", err)
	}
	c, err := net.Dial("tcp", fwd.Addrs()[0].String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("hi\n"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != "echo hi\n" {
		t.Fatalf("through the forwarder: %q, %v", line, err)
	}
	done := make(chan struct{})
	go func() { fwd.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the forwarded connection")
	}
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("the client's connection is still open after Close")
	}
	if _, err := (&net.Dialer{Timeout: time.Second}).DialContext(context.Background(), "tcp", fwd.Addrs()[0].String()); err == nil {
		t.Error("still listening after Close")
	}
}

// The zero Forwarder, the backend's for a pod with no published ports, listens on nothing and
// closes at once.
func TestTheZeroForwarderForwardsNothing(t *testing.T) {
	var f Forwarder
	if err := f.Close(); err != nil || len(f.Addrs()) != 0 {
		t.Errorf("zero Forwarder: Close %v, Addrs %v", err, f.Addrs())
	}
}
