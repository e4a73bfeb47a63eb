package framework

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestGoneWaitsForTheLockHolder holds Pod.Locked and Pod.Gone to the flock a handler takes with
// Handler.HoldsLock: held while another open file description has it, free once that is closed
// (as at the holder's exit), and an error when the handler never created the file.
func TestGoneWaitsForTheLockHolder(t *testing.T) {
	p := &Pod{Dir: t.TempDir()}
	if _, err := p.Locked("none.lock"); err == nil {
		t.Fatal("Locked on a missing file: no error")
	}
	f, err := os.OpenFile(filepath.Join(p.Dir, "h.lock"), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if held, err := p.Locked("h.lock"); err != nil || !held {
		t.Fatalf("Locked = %v, %v while held", held, err)
	}
	if err := p.Gone(context.Background(), "h.lock", 100*time.Millisecond); err == nil {
		t.Fatal("Gone returned while the lock is held")
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(50 * time.Millisecond)
		f.Close()
		close(released)
	}()
	if err := p.Gone(context.Background(), "h.lock", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case <-released:
	default:
		t.Fatal("Gone returned before the holder released the lock")
	}
	if held, err := p.Locked("h.lock"); err != nil || held {
		t.Fatalf("Locked = %v, %v after the release", held, err)
	}
}
