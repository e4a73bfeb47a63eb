// Package supervisor is the body of the per-pod supervisor process (`podspec supervise`) and
// the client side the command-line verbs use to reach it.
//
// One supervisor runs per pod. It holds the pod's supervisor lock for its whole life (so a
// verb can tell a live supervisor from a dead one without trusting pids), records its pid and
// process start time in the state, becomes the child subreaper of the pod's container
// processes, runs the lifecycle engine, and serves a unix socket in the pod directory for
// requests (JSON, one request and one response per connection). When a supervisor dies, the
// next verb that touches the pod starts a new one, which adopts the pod (engine.Options.Adopt).
package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/notify"
	"podspec.dev/podspec/reference/reaper"
	"podspec.dev/podspec/reference/store"
)

// Request operations. New operations (notify, update) add a constant and a handler.
const (
	OpPing = "ping"
	OpStop = "stop"
	// OpNotify hands the pod's turn of a Notification to the supervisor: Payload is a
	// notify.DeliverRequest; the answer's Data is the pod record as persisted.
	OpNotify = "notify"
	// OpUpdate applies an in-place update; Payload is an engine.UpdateRequest and the answer's
	// Data an engine.UpdateResponse.
	OpUpdate = "update"
)

// Request is one command sent to a supervisor.
type Request struct {
	Op string `json:"op"`
	// ID identifies a request that its sender may send again after losing the answer: OpStop
	// records a request with an ID it has seen once.
	ID string `json:"id,omitempty"`
	// GracePeriodSeconds and Force parameterise OpStop.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	Force              bool   `json:"force,omitempty"`
	// Payload carries operation-specific data for operations added later.
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Response answers a Request.
type Response struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// Code classifies Error with a code of the runtime contract: CodeIO when the request is
	// in effect but could not be written to disk; empty for any other failure.
	Code string          `json:"code,omitempty"`
	Data json.RawMessage `json:"data,omitempty"`
}

// CodeIO is Response.Code for a request the pod's state or events could not record.
const CodeIO = "IO"

// RemoteError is a request the supervisor answered with an error.
type RemoteError struct {
	Pod string
	// Code is the response's Code.
	Code    string
	Message string
}

func (e *RemoteError) Error() string { return fmt.Sprintf("supervisor of %s: %s", e.Pod, e.Message) }

// Handler serves one operation.
type Handler func(ctx context.Context, req *Request) (any, error)

// Options configure Run.
type Options struct {
	Pod     *store.Pod
	Backend engine.Backend
	// Logf receives diagnostics (the supervisor's log file).
	Logf func(format string, args ...any)
}

// ErrAlreadySupervised is returned by Run when another live supervisor holds the pod.
var ErrAlreadySupervised = errors.New("the pod already has a live supervisor")

// Run supervises the pod until it is terminal. It returns ErrAlreadySupervised at once when
// another supervisor holds the pod's lock.
func Run(ctx context.Context, o Options) error {
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	lock, err := o.Pod.TrySupervisorLock()
	if err != nil {
		if errors.Is(err, store.ErrBusy) {
			return ErrAlreadySupervised
		}
		return err
	}
	defer lock.Unlock()

	st, err := o.Pod.ReadState()
	if err != nil {
		return err
	}
	if st.Pod.Status != nil && st.Pod.Status.FinishedAt != nil {
		return nil
	}
	adopt := st.Supervisor.PID != 0
	// Recorded by the engine's first state write, before anything else happens to the pod.
	me := store.SupervisorInfo{PID: os.Getpid(), StartTime: procstat.StartTime(os.Getpid()), Generation: st.Supervisor.Generation + 1}

	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rp, err := reaper.Start(rctx)
	if err != nil {
		return err
	}
	eng, err := engine.New(engine.Options{Pod: o.Pod, Backend: o.Backend, Watcher: rp, Adopt: adopt, Supervisor: &me, Logf: logf})
	if err != nil {
		return err
	}
	ntf := engine.NewNotifier(eng)
	go ntf.Resume(rctx)
	handlers := map[string]Handler{
		// A ping answers once an adopting supervisor has taken the pod over, so the verb
		// that started it (Ensure) then reads the adopter's state, not the lost one's.
		OpPing: func(ctx context.Context, _ *Request) (any, error) {
			wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			eng.WaitAdopted(wctx)
			return nil, nil
		},
		OpStop: func(ctx context.Context, r *Request) (any, error) {
			return nil, eng.StopOnce(ctx, r.ID, r.GracePeriodSeconds, r.Force)
		},
		OpNotify: func(_ context.Context, r *Request) (any, error) {
			var dr notify.DeliverRequest
			if err := json.Unmarshal(r.Payload, &dr); err != nil {
				return nil, fmt.Errorf("notify: %w", err)
			}
			return ntf.Notify(rctx, &dr)
		},
		OpUpdate: func(ctx context.Context, r *Request) (any, error) {
			return eng.HandleUpdate(ctx, r.Payload)
		},
	}
	ln, err := listen(o.Pod.Path(store.SocketFile))
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		serve(rctx, ln, handlers, logf)
	}()
	runErr := eng.Run(rctx)
	// Deliveries still pending or running record their outcome before the supervisor exits.
	ntf.Wait(30 * time.Second)
	ln.Close()
	os.Remove(o.Pod.Path(store.SocketFile))
	wg.Wait()
	return runErr
}

// serve answers requests until the listener closes.
func serve(ctx context.Context, ln net.Listener, handlers map[string]Handler, logf func(string, ...any)) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			c.SetDeadline(time.Now().Add(30 * time.Second))
			var req Request
			resp := Response{OK: true}
			if err := json.NewDecoder(c).Decode(&req); err != nil {
				resp = Response{Error: fmt.Sprintf("bad request: %v", err)}
			} else if h := handlers[req.Op]; h == nil {
				resp = Response{Error: fmt.Sprintf("unknown operation %q", req.Op)}
			} else if data, err := h(ctx, &req); err != nil {
				resp = Response{Error: err.Error()}
				if errors.Is(err, engine.ErrNotPersisted) {
					resp.Code = CodeIO
				}
			} else if data != nil {
				b, _ := json.Marshal(data)
				resp.Data = b
			}
			if err := json.NewEncoder(c).Encode(resp); err != nil {
				logf("answer %s: %v", req.Op, err)
			}
		}()
	}
}

// socketAddr shortens a socket path that exceeds the unix address limit by going through a
// directory file descriptor (/proc/self/fd/N/NAME); close releases the descriptor.
func socketAddr(path string) (addr string, closeFn func(), err error) {
	if len(path) < 100 {
		return path, func() {}, nil
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("/proc/self/fd/%d/%s", d.Fd(), filepath.Base(path)), func() { d.Close() }, nil
}

func listen(path string) (net.Listener, error) {
	os.Remove(path)
	addr, done, err := socketAddr(path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	defer done()
	ln, err := net.Listen("unix", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	return ln, nil
}

// Call sends one request to the pod's supervisor and returns its response.
func Call(ctx context.Context, pod *store.Pod, req *Request) (*Response, error) {
	addr, done, err := socketAddr(pod.Path(store.SocketFile))
	if err != nil {
		return nil, fmt.Errorf("reach supervisor of %s: %w", pod.Name, err)
	}
	defer done()
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", addr)
	if err != nil {
		return nil, fmt.Errorf("reach supervisor of %s: %w", pod.Name, err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	if err := json.NewEncoder(c).Encode(req); err != nil {
		return nil, fmt.Errorf("send %s to supervisor of %s: %w", req.Op, pod.Name, err)
	}
	var resp Response
	if err := json.NewDecoder(c).Decode(&resp); err != nil {
		return nil, fmt.Errorf("read answer of supervisor of %s: %w", pod.Name, err)
	}
	if !resp.OK {
		return &resp, &RemoteError{Pod: pod.Name, Code: resp.Code, Message: resp.Error}
	}
	return &resp, nil
}
