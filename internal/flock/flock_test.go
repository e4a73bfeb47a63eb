package flock

import (
	"context"
	"errors"
	"path/filepath"
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
