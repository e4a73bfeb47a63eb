package engine

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestCreationGateBoundsAndLetsWaitersThroughInDeclarationOrder(t *testing.T) {
	g := newCreationGate(2)
	ctx := context.Background()
	r1, _ := g.acquire(ctx, 5)
	r2, _ := g.acquire(ctx, 6)
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for _, o := range []int{9, 3, 7, 4} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rel, err := g.acquire(ctx, o)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, o)
			mu.Unlock()
			rel()
		}()
	}
	// Every waiter is queued before a place frees.
	for deadline := time.Now().Add(5 * time.Second); ; {
		g.mu.Lock()
		n := len(g.waiting)
		g.mu.Unlock()
		if n == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d waiters queued", n)
		}
		time.Sleep(time.Millisecond)
	}
	r1()
	r1() // giving a place back twice frees it once
	wg.Wait()
	if want := []int{3, 4, 7, 9}; len(order) != 4 || order[0] != want[0] || order[1] != want[1] || order[2] != want[2] || order[3] != want[3] {
		t.Errorf("waiters went through in order %v, want the slots' order %v", order, want)
	}
	r2()
	if g.free != 2 {
		t.Errorf("%d places free after every release, want 2", g.free)
	}
	// A waiter whose context ends leaves the queue and takes no place.
	ra, _ := g.acquire(ctx, 1)
	rb, _ := g.acquire(ctx, 2)
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if _, err := g.acquire(cctx, 0); err == nil {
		t.Errorf("acquire on a full gate returned without a place after its context ended")
	}
	ra()
	rb()
	if g.free != 2 || len(g.waiting) != 0 {
		t.Errorf("free %d, waiting %d after a cancelled wait", g.free, len(g.waiting))
	}
	if newCreationGate(0).free != DefaultCreateParallelism() {
		t.Errorf("a gate of 0 places has %d, want the default", newCreationGate(0).free)
	}
}
