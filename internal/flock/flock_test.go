package flock

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestExclusiveWaitsForTheHolderAndHonoursTheContext(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Exclusive(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Exclusive(ctx, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock while held: err = %v, want the context's deadline", err)
	}
	got := make(chan error, 1)
	go func() {
		u, err := Exclusive(context.Background(), p)
		if err == nil {
			u()
		}
		got <- err
	}()
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("lock after release: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter never got the released lock")
	}
}

func TestSlotBoundsTheHoldersAndLetsEveryWaiterThrough(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "slots")
	const n, workers = 2, 6
	var mu sync.Mutex
	in, most := 0, 0
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := Slot(context.Background(), dir, n)
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			in++
			most = max(most, in)
			mu.Unlock()
			time.Sleep(50 * time.Millisecond)
			mu.Lock()
			in--
			mu.Unlock()
			release()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if most != n {
		t.Fatalf("at most %d holders at once, want %d (the bound, reached by %d workers)", most, n, workers)
	}
}

func TestSlotWaitHonoursTheContextAndAFreedSlot(t *testing.T) {
	dir := t.TempDir()
	r1, err := Slot(context.Background(), dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Slot(ctx, dir, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second slot of 1 while held: err = %v, want the context's deadline", err)
	}
	got := make(chan error, 1)
	go func() {
		r, err := Slot(context.Background(), dir, 1)
		if err == nil {
			r()
		}
		got <- err
	}()
	r1()
	r1() // a second release is harmless
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("slot after release: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter never got the freed slot (or the abandoned waiter kept it)")
	}
	if _, err := Slot(context.Background(), dir, 0); err == nil {
		t.Fatal("0 slots: no error")
	}
}
