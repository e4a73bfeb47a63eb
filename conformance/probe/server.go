package probe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// maxLine bounds one event line (a report with a large environment stays far below it).
const maxLine = 1 << 20

// Server is the harness end of the probe socket. It stamps every event with the harness clock
// when it arrives and acknowledges it; Events returns them in arrival order.
type Server struct {
	path string
	ln   net.Listener
	now  func() time.Time

	mu      sync.Mutex
	events  []Event
	errs    []error
	changed chan struct{} // closed and replaced whenever events or errs change
	wg      sync.WaitGroup
}

// Listen creates the socket at path (its directory must exist) and starts serving. The socket is
// world-writable so that a container's user can reach it. now stamps events (time.Now when nil).
func Listen(path string, now func() time.Time) (*Server, error) {
	if now == nil {
		now = time.Now
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o777); err != nil {
		ln.Close()
		return nil, fmt.Errorf("chmod %s: %w", path, err)
	}
	s := &Server{path: path, ln: ln, now: now, changed: make(chan struct{})}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Path is the socket's path on the host.
func (s *Server) Path() string { return s.path }

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.fail(fmt.Errorf("accept: %w", err))
			}
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serve(conn)
		}()
	}
}

func (s *Server) serve(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * AckTimeout))
	r := bufio.NewReaderSize(conn, 64<<10)
	for {
		line, err := readLine(r)
		if err != nil {
			return // EOF, or a client that went away; nothing to record
		}
		stamp := s.now()
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil {
			s.fail(fmt.Errorf("malformed probe event %q: %w", line, err))
			return
		}
		ev.Received = stamp
		ev.Fallback = false
		s.add(ev)
		if _, err := conn.Write([]byte(ack)); err != nil {
			return
		}
	}
}

func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, fmt.Errorf("event line longer than %d bytes", maxLine)
		}
		if !isPrefix {
			return buf, nil
		}
	}
}

func (s *Server) add(ev Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, ev)
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, err)
	close(s.changed)
	s.changed = make(chan struct{})
}

// Events returns a copy of the events received so far, in arrival order, followed by the events
// found in the fallback file next to the socket (marked Fallback, not stamped).
func (s *Server) Events() []Event {
	s.mu.Lock()
	out := append([]Event(nil), s.events...)
	s.mu.Unlock()
	fb, err := ReadFallback(filepath.Join(filepath.Dir(s.path), FallbackFile))
	if err != nil {
		s.fail(err)
	}
	return append(out, fb...)
}

// Err reports protocol errors seen so far (malformed events, a broken fallback file).
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.errs...)
}

// Wait blocks until cond holds for the events received so far or ctx ends.
func (s *Server) Wait(ctx context.Context, cond func([]Event) bool) error {
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond(s.Events()) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for probe events: %w", ctx.Err())
		}
	}
}

// Close stops accepting, waits for connections in flight and removes the socket.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.wg.Wait()
	if rmErr := os.Remove(s.path); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
		err = errors.Join(err, rmErr)
	}
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// ReadFallback reads the events a probe appended to a fallback file (none if it does not exist).
func ReadFallback(path string) ([]Event, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read fallback events: %w", err)
	}
	var out []Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return out, fmt.Errorf("fallback event %q: %w", sc.Text(), err)
		}
		ev.Received = time.Time{}
		ev.Fallback = true
		out = append(out, ev)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("scan %s: %w", path, err)
	}
	return out, nil
}
