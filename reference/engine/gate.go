package engine

import (
	"context"
	"runtime"
	"sort"
	"sync"
)

// DefaultCreateParallelism is how many container instances a pod creates and starts at once
// when nothing else is configured: two per CPU (each creation is an OCI runtime process that
// is busy for tens of milliseconds), at least 2.
func DefaultCreateParallelism() int { return max(2, 2*runtime.NumCPU()) }

// creationGate bounds how many instances of a pod are being created and started at once (a
// pod of 1,000 containers must not start 1,000 OCI runtime processes together). Waiting slots
// are let through in the order the pod declares them. It is only a bound: every ordering rule
// (init containers, sidecars, dependsOn) is decided before a slot asks, so it changes no order
// the spec defines, and a slot never holds it while it waits for another container.
type creationGate struct {
	mu      sync.Mutex
	free    int
	waiting []*gateTicket // by order
}

type gateTicket struct {
	order int
	ready chan struct{}
}

func newCreationGate(n int) *creationGate {
	if n <= 0 {
		n = DefaultCreateParallelism()
	}
	return &creationGate{free: n}
}

// acquire waits for a place (order: the slot's position in the pod) and returns the function
// that gives it back, or ctx's error.
func (g *creationGate) acquire(ctx context.Context, order int) (func(), error) {
	g.mu.Lock()
	if g.free > 0 && len(g.waiting) == 0 {
		g.free--
		g.mu.Unlock()
		return sync.OnceFunc(g.release), nil
	}
	t := &gateTicket{order: order, ready: make(chan struct{})}
	i := sort.Search(len(g.waiting), func(i int) bool { return g.waiting[i].order > order })
	g.waiting = append(g.waiting, nil)
	copy(g.waiting[i+1:], g.waiting[i:])
	g.waiting[i] = t
	g.mu.Unlock()
	select {
	case <-t.ready:
		return sync.OnceFunc(g.release), nil
	case <-ctx.Done():
		g.mu.Lock()
		for i, w := range g.waiting {
			if w == t {
				g.waiting = append(g.waiting[:i], g.waiting[i+1:]...)
				g.mu.Unlock()
				return nil, ctx.Err()
			}
		}
		g.mu.Unlock()
		g.release() // granted meanwhile: pass it on
		return nil, ctx.Err()
	}
}

// release hands the place to the first waiting slot, or frees it.
func (g *creationGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.waiting) > 0 {
		t := g.waiting[0]
		g.waiting = g.waiting[1:]
		close(t.ready)
		return
	}
	g.free++
}
