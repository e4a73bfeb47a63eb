package framework

import (
	"io"
	"net"
	"net/http"
	"time"
)

// FreeLoopbackPort is a TCP port that nothing listens on now on the host's 127.0.0.1.
func FreeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// FetchPage is the body of http://addr/ (5 s at most).
func FetchPage(addr string) (string, error) {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// Accepts reports whether something accepts a TCP connection on addr within a second.
func Accepts(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
